/**
 * OpenAI Responses input items (`ResponseInputItem`) as the library's own structural types: an
 * `openai-responses` view of this type is `client.responses.create({ input })` without a cast,
 * and the published types need no SDK. The variants are the items agents exchange (messages,
 * function and custom tool calls with their outputs, reasoning); items of other types that were
 * added pass through at run time, but the types do not name them.
 */

/**
 * A text part of an input message (`ResponseInputText`).
 *
 * @example
 * const part: ResponsesInputText = { type: 'input_text', text: 'hello' }
 */
export interface ResponsesInputText {
  type: 'input_text'
  text: string
}

/**
 * A citation inside an output text part (`ResponseOutputText` annotations).
 *
 * @example
 * const citation: ResponsesAnnotation = { type: 'url_citation', url: 'https://example.com', title: 'Example', start_index: 0, end_index: 7 }
 */
export type ResponsesAnnotation =
  | { type: 'file_citation'; file_id: string; filename: string; index: number }
  | { type: 'url_citation'; url: string; title: string; start_index: number; end_index: number }
  | { type: 'container_file_citation'; container_id: string; file_id: string; filename: string; start_index: number; end_index: number }
  | { type: 'file_path'; file_id: string; index: number }

/** The status field of output items. */
type ItemStatus = 'in_progress' | 'completed' | 'incomplete'

/**
 * One item of a Responses `input` array: an easy input message, an output message sent back, a
 * function or custom tool call, its output, or a reasoning item.
 *
 * @example
 * const item: ResponsesInputItem = { type: 'function_call_output', call_id: 'call_1', output: '42' }
 */
export type ResponsesInputItem =
  | { type?: 'message'; role: 'user' | 'assistant' | 'system' | 'developer'; content: string | Array<ResponsesInputText> }
  | {
      type: 'message'
      id: string
      role: 'assistant'
      status: ItemStatus
      content: Array<{ type: 'output_text'; text: string; annotations: Array<ResponsesAnnotation> } | { type: 'refusal'; refusal: string }>
    }
  | { type: 'function_call'; call_id: string; name: string; arguments: string; id?: string; status?: ItemStatus }
  | { type: 'function_call_output'; call_id: string; output: string | Array<ResponsesInputText>; id?: string | null; status?: ItemStatus | null }
  | { type: 'custom_tool_call'; call_id: string; name: string; input: string; id?: string }
  | { type: 'custom_tool_call_output'; call_id: string; output: string | Array<ResponsesInputText>; id?: string }
  | {
      type: 'reasoning'
      id: string
      summary: Array<{ type: 'summary_text'; text: string }>
      content?: Array<{ type: 'reasoning_text'; text: string }>
      encrypted_content?: string | null
      status?: ItemStatus
    }
