/**
 * The AI SDK's `ModelMessage` (v6, `ai`) as the library's own structural types: a view of this
 * type is assignable to `generateText({ messages })` and to a `prepareStep` result without a cast,
 * and the published types need no SDK. Arrays are mutable because the SDK's are.
 */

/**
 * A JSON value as the AI SDK types it (`JSONValue`: mutable arrays, objects whose members may be
 * `undefined`).
 *
 * @example
 * const value: AiSdkJsonValue = { city: 'Oslo', days: [1, 2] }
 */
export type AiSdkJsonValue = null | string | number | boolean | { [key: string]: AiSdkJsonValue | undefined } | Array<AiSdkJsonValue>

/**
 * Provider-specific options of a message or part (`ProviderOptions`): provider name to a JSON
 * object, e.g. `{ anthropic: { cacheControl: { type: 'ephemeral' } } }`.
 *
 * @example
 * const options: AiSdkProviderOptions = { anthropic: { cacheControl: { type: 'ephemeral' } } }
 */
export type AiSdkProviderOptions = Record<string, { [key: string]: AiSdkJsonValue | undefined }>

/**
 * Binary or URL content of an image or file part (`DataContent | URL`): base64 string, bytes or URL.
 *
 * @example
 * const data: AiSdkDataContent = 'iVBORw0KGgo...'
 */
export type AiSdkDataContent = string | Uint8Array | ArrayBuffer | URL

/** `TextPart`. */
interface TextPart {
  type: 'text'
  text: string
  providerOptions?: AiSdkProviderOptions
}

/** `ImagePart` and `FilePart`. */
type MediaPart =
  | { type: 'image'; image: AiSdkDataContent; mediaType?: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'file'; data: AiSdkDataContent; filename?: string; mediaType: string; providerOptions?: AiSdkProviderOptions }

/**
 * A tool result's output (`ToolResultOutput`): text, JSON, their error forms, a denied execution
 * or multi-part content.
 *
 * @example
 * const output: AiSdkToolResultOutput = { type: 'text', value: '17 files' }
 */
export type AiSdkToolResultOutput =
  | { type: 'text' | 'error-text'; value: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'json' | 'error-json'; value: AiSdkJsonValue; providerOptions?: AiSdkProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: AiSdkProviderOptions }
  | {
      type: 'content'
      value: Array<
        | { type: 'text'; text: string; providerOptions?: AiSdkProviderOptions }
        | { type: 'media'; data: string; mediaType: string }
        | { type: 'file-data' | 'image-data'; data: string; mediaType: string; filename?: string; providerOptions?: AiSdkProviderOptions }
        | { type: 'file-url' | 'image-url'; url: string; mediaType?: string; providerOptions?: AiSdkProviderOptions }
      >
    }

/**
 * A `tool-result` part (`ToolResultPart`).
 *
 * @example
 * const part: AiSdkToolResultPart = { type: 'tool-result', toolCallId: 'c1', toolName: 'ls', output: { type: 'text', value: 'a.ts' } }
 */
export interface AiSdkToolResultPart {
  type: 'tool-result'
  toolCallId: string
  toolName: string
  output: AiSdkToolResultOutput
  providerOptions?: AiSdkProviderOptions
}

/** The parts of an assistant message (`AssistantContent`). */
type AssistantPart =
  | TextPart
  | Extract<MediaPart, { type: 'file' }>
  | { type: 'reasoning'; text: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; providerOptions?: AiSdkProviderOptions; providerExecuted?: boolean }
  | AiSdkToolResultPart
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }

/**
 * An AI SDK v6 `ModelMessage`, one variant per role.
 *
 * @example
 * const message: AiSdkModelMessage = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } }] }
 */
export type AiSdkModelMessage =
  | { role: 'system'; content: string; providerOptions?: AiSdkProviderOptions }
  | { role: 'user'; content: string | Array<TextPart | MediaPart>; providerOptions?: AiSdkProviderOptions }
  | { role: 'assistant'; content: string | Array<AssistantPart>; providerOptions?: AiSdkProviderOptions }
  | {
      role: 'tool'
      content: Array<AiSdkToolResultPart | { type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string; providerExecuted?: boolean }>
      providerOptions?: AiSdkProviderOptions
    }
