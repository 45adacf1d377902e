/**
 * A fake model provider on 127.0.0.1 for the SDK example loops: it speaks the OpenAI Chat
 * Completions (`POST /v1/chat/completions`), OpenAI Responses (`POST /v1/responses`) and
 * Anthropic Messages (`POST /v1/messages`) wire formats, checks every request body against the
 * provider's rules (`findFormatViolations`, the rules of tools/validate_formats.py; for Responses
 * also the reasoning-item rules below) and answers 400 like the real API when one breaks them. The
 * model is scripted: `toolRounds` answers with parallel tool calls, then a final text; a Responses
 * answer starts with a `reasoning` item. Usage is computed from the request as a provider would
 * report it, prompt-cache fields included: the prompt is ~4 characters a token; the part of it
 * equal to the previous request's prefix (from 1,024 tokens on) is read from the cache; Anthropic
 * also writes everything up to the last message to the cache.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { findFormatViolations } from '../../src/core/formats/dispatch.js'

/** One request the server received: its path, its body, and the rule violations found in it. */
export interface ReceivedRequest {
  readonly path: string
  readonly body: Readonly<Record<string, unknown>>
  readonly violations: ReadonlyArray<string>
}

/** The usage figures of one answer, in tokens: the whole prompt and how much of it the cache held. */
export interface AnsweredUsage {
  readonly promptTokens: number
  readonly cacheRead: number
  readonly cacheWrite: number
}

/** A running fake provider. `url` has no trailing slash (`http://127.0.0.1:PORT`). */
export interface FakeProviderServer {
  readonly url: string
  readonly requests: ReadonlyArray<ReceivedRequest>
  readonly usages: ReadonlyArray<AnsweredUsage>
  /** The `reasoning` items the Responses endpoint answered, in order. */
  readonly reasoningItems: ReadonlyArray<Readonly<Record<string, unknown>>>
  readonly close: () => Promise<void>
}

/** The scripted model: how many answers carry tool calls (each `parallelCalls` calls) before the final text. */
export interface FakeModelScript {
  readonly toolRounds: number
  readonly parallelCalls: number
  readonly tool: string
  /**
   * Put in the ids of the reasoning items and calls this server answers (`rs_<tag><n>`,
   * `fc_<tag><n>_<i>`), so they cannot collide with ids of a history it did not answer; default ''.
   */
  readonly idTag?: string
}

const MIN_CACHED_PREFIX = 1_024

/** Tokens of a JSON value as this fake provider counts them (~4 characters a token). */
const tokensOf = (value: unknown): number => Math.ceil(JSON.stringify(value).length / 4)

/**
 * The prompt as a list of units whose prefix the cache can hold: tools, system (Responses:
 * `instructions`) first, then each message (Responses: each `input` item).
 */
const promptUnits = (body: Readonly<Record<string, unknown>>): ReadonlyArray<unknown> => {
  const messages = Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : typeof body.input === 'string' ? [body.input] : []
  return [body.tools ?? null, body.system ?? body.instructions ?? null, ...messages]
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })

const send = (response: ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${Date.now()}` })
  response.end(JSON.stringify(body))
}

/** How many objects in `value` carry a `cache_control` (Anthropic breakpoints). */
const countCacheControls = (value: unknown): number => {
  if (Array.isArray(value)) return value.reduce<number>((total, item) => total + countCacheControls(item), 0)
  if (typeof value !== 'object' || value === null) return 0
  const record = value as Record<string, unknown>
  return (record.cache_control ? 1 : 0) + Object.entries(record).reduce((total, [key, item]) => total + (key === 'cache_control' ? 0 : countCacheControls(item)), 0)
}

/** The body of a 400 in OpenAI's error shape (Chat Completions and Responses), naming the offending field. */
const openAIError =
  (param: string) =>
  (message: string): unknown => ({ error: { message, type: 'invalid_request_error', param, code: null } })

/** A `reasoning` output item this server answered, and the id of the item that followed it. */
interface IssuedReasoning {
  readonly item: Readonly<Record<string, unknown>>
  readonly followedBy: string
}

/** The end of the API's answer to a reasoning item it cannot find under `store: false` (HTTP 404). */
const NOT_PERSISTED = 'Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.'

/**
 * The Responses API's reasoning-item rules, on an `input` array, against the reasoning items this
 * server answered: a reasoning item comes back as it was answered (with `store: false` its
 * `encrypted_content` is what carries it: without it the API does not find the item) and
 * immediately before the item that followed it in the output; that item does not come back without
 * it. The messages are the API's own.
 */
const findReasoningViolations = (input: unknown, store: unknown, issued: ReadonlyMap<string, IssuedReasoning>): ReadonlyArray<string> => {
  if (!Array.isArray(input)) return []
  const items = input.map((item: unknown) => (typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {}))
  const requiredBy = new Map([...issued].map(([id, { followedBy }]) => [followedBy, id]))
  const problems: string[] = []
  items.forEach((item, i) => {
    const id = typeof item.id === 'string' ? item.id : ''
    const answered = issued.get(id)
    if (item.type === 'reasoning' && answered !== undefined) {
      // Under store: false the item is found only through its encrypted content, which the client
      // gets by asking for it (include: ['reasoning.encrypted_content']).
      if (store === false && (typeof item.encrypted_content !== 'string' || item.encrypted_content !== answered.item.encrypted_content)) {
        problems.push(`Item with id '${id}' not found. ${NOT_PERSISTED}`)
      } else if (JSON.stringify(item) !== JSON.stringify(answered.item)) problems.push(`Item '${id}' of type 'reasoning' was altered.`)
      if (items[i + 1]?.id !== answered.followedBy) problems.push(`Item '${id}' of type 'reasoning' was provided without its required following item.`)
    }
    const reasoning = requiredBy.get(id)
    if (reasoning !== undefined && items[i - 1]?.id !== reasoning) problems.push(`Item '${id}' of type '${String(item.type)}' was provided without its required 'reasoning' item: '${reasoning}'.`)
  })
  return problems
}

/**
 * Starts the fake provider on a free port of 127.0.0.1 (port 0: the OS picks one). The caller
 * closes it.
 */
export const startFakeProvider = async (script: FakeModelScript): Promise<FakeProviderServer> => {
  const requests: Array<ReceivedRequest> = []
  const usages: Array<AnsweredUsage> = []
  const issued = new Map<string, IssuedReasoning>()
  const reasoningItems: Array<Readonly<Record<string, unknown>>> = []
  let previous: ReadonlyArray<string> = []
  let answered = 0

  /** The usage of this prompt against the previous one (common prefix of whole units). */
  const measure = (body: Readonly<Record<string, unknown>>, writesCache: boolean): AnsweredUsage => {
    const units = promptUnits(body).map((unit) => JSON.stringify(unit))
    const promptTokens = units.reduce((sum, unit) => sum + Math.ceil(unit.length / 4), 0)
    let common = 0
    let commonTokens = 0
    while (common < units.length && common < previous.length && units[common] === previous[common]) {
      commonTokens += Math.ceil(units[common].length / 4)
      common += 1
    }
    previous = units
    const cacheRead = commonTokens >= MIN_CACHED_PREFIX ? commonTokens : 0
    const lastTokens = units.length > 0 ? Math.ceil(units[units.length - 1].length / 4) : 0
    const cacheWrite = writesCache ? Math.max(0, promptTokens - cacheRead - lastTokens) : 0
    const usage = { promptTokens, cacheRead, cacheWrite }
    usages.push(usage)
    return usage
  }

  /** The scripted answer of call `n` (0-based): tool calls for the first rounds, then text. */
  const nextAnswer = (): { readonly calls: ReadonlyArray<{ readonly id: string; readonly input: Record<string, string> }>; readonly text: string } => {
    const n = answered
    answered += 1
    if (n % (script.toolRounds + 1) === script.toolRounds) return { calls: [], text: `Done after ${script.toolRounds} rounds of ${script.tool}.` }
    const calls = Array.from({ length: script.parallelCalls }, (_, i) => ({ id: `call_${n}_${i}`, input: { path: `src/file-${n}-${i}.ts` } }))
    return { calls, text: '' }
  }

  /**
   * Records the request; when it broke a rule, answers with `refusal` and returns false: 404 for a
   * reasoning item that cannot be found (as the API answers it), 400 otherwise.
   */
  const admit = (path: string, body: Readonly<Record<string, unknown>>, violations: ReadonlyArray<string>, response: ServerResponse, refusal: (message: string) => unknown): boolean => {
    requests.push({ path, body, violations })
    if (violations.length > 0) send(response, violations.some((problem) => problem.endsWith(NOT_PERSISTED)) ? 404 : 400, refusal(violations.join('; ')))
    return violations.length === 0
  }

  const chat = (body: Readonly<Record<string, unknown>>, response: ServerResponse): void => {
    const violations = findFormatViolations('openai-chat', body.messages)
    if (!admit('/v1/chat/completions', body, violations, response, openAIError('messages'))) return
    const usage = measure(body, false)
    const answer = nextAnswer()
    const output = Math.max(1, tokensOf(answer))
    send(response, 200, {
      id: `chatcmpl-${answered}`,
      object: 'chat.completion',
      created: 1_764_547_200,
      model: body.model,
      choices: [
        {
          index: 0,
          finish_reason: answer.calls.length > 0 ? 'tool_calls' : 'stop',
          logprobs: null,
          message: {
            role: 'assistant',
            content: answer.calls.length > 0 ? null : answer.text,
            refusal: null,
            annotations: [],
            ...(answer.calls.length > 0
              ? { tool_calls: answer.calls.map((call) => ({ id: call.id, type: 'function', function: { name: script.tool, arguments: JSON.stringify(call.input) } })) }
              : {}),
          },
        },
      ],
      usage: {
        prompt_tokens: usage.promptTokens,
        completion_tokens: output,
        total_tokens: usage.promptTokens + output,
        prompt_tokens_details: { cached_tokens: usage.cacheRead, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
    })
  }

  const responses = (body: Readonly<Record<string, unknown>>, response: ServerResponse): void => {
    const violations = [...(typeof body.input === 'string' ? [] : findFormatViolations('openai-responses', body.input)), ...findReasoningViolations(body.input, body.store, issued)]
    if (!admit('/v1/responses', body, violations, response, openAIError('input'))) return
    const usage = measure(body, false)
    const answer = nextAnswer()
    const count = answered
    const n = `${script.idTag ?? ''}${count}`
    // encrypted_content when the request includes it (what a stateless, store: false loop sends
    // back); a summary on every other answer
    const encrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content')
    const reasoning = {
      id: `rs_${n}`,
      type: 'reasoning',
      summary: count % 2 === 1 ? [{ type: 'summary_text', text: `**Planning step ${n}**\n\nRead the files the task names before answering.` }] : [],
      ...(encrypted ? { encrypted_content: Buffer.from(`reasoning of answer ${n}: `.repeat(24)).toString('base64') } : {}),
    }
    const items: ReadonlyArray<Readonly<Record<string, unknown>>> =
      answer.calls.length > 0
        ? answer.calls.map((call, i) => ({ id: `fc_${n}_${i}`, type: 'function_call', status: 'completed', arguments: JSON.stringify(call.input), call_id: call.id, name: script.tool }))
        : [{ id: `msg_${n}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: answer.text, annotations: [], logprobs: [] }] }]
    issued.set(reasoning.id, { item: reasoning, followedBy: String(items[0].id) })
    reasoningItems.push(reasoning)
    const reasoningTokens = tokensOf(reasoning)
    const output = reasoningTokens + Math.max(1, tokensOf(items))
    send(response, 200, {
      id: `resp_${n}`,
      object: 'response',
      created_at: 1_764_547_200,
      status: 'completed',
      background: false,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      metadata: {},
      model: body.model,
      output: [reasoning, ...items],
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: 'medium', summary: 'auto' },
      service_tier: 'default',
      store: body.store ?? true,
      temperature: 1,
      text: { format: { type: 'text' }, verbosity: 'medium' },
      tool_choice: 'auto',
      tools: body.tools ?? [],
      top_p: 1,
      truncation: 'disabled',
      usage: {
        input_tokens: usage.promptTokens,
        input_tokens_details: { cached_tokens: usage.cacheRead },
        output_tokens: output,
        output_tokens_details: { reasoning_tokens: reasoningTokens },
        total_tokens: usage.promptTokens + output,
      },
    })
  }

  const messages = (body: Readonly<Record<string, unknown>>, response: ServerResponse): void => {
    const view = { ...(body.system === undefined ? {} : { system: body.system }), messages: body.messages }
    const violations = [
      ...findFormatViolations('anthropic', view),
      ...(typeof body.max_tokens === 'number' ? [] : ['max_tokens: Field required']),
      // the API's limit on prompt-cache breakpoints (tools, system and messages together)
      ...(countCacheControls([body.tools, body.system, body.messages]) > 4 ? [`A maximum of 4 blocks with cache_control may be provided. Found ${countCacheControls([body.tools, body.system, body.messages])}.`] : []),
      // the API's answer to an empty conversation (a trimmer that kept nothing but the system prompt)
      ...(Array.isArray(body.messages) && body.messages.length === 0 ? ['messages: at least one message is required'] : []),
    ]
    if (!admit('/v1/messages', body, violations, response, (message) => ({ type: 'error', error: { type: 'invalid_request_error', message } }))) return
    const usage = measure(body, true)
    const answer = nextAnswer()
    const output = Math.max(1, tokensOf(answer))
    send(response, 200, {
      id: `msg_${answered}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content:
        answer.calls.length > 0
          ? [{ type: 'text', text: `Reading ${answer.calls.length} files.` }, ...answer.calls.map((call) => ({ type: 'tool_use', id: call.id, name: script.tool, input: call.input }))]
          : [{ type: 'text', text: answer.text }],
      stop_reason: answer.calls.length > 0 ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: usage.promptTokens - usage.cacheRead - usage.cacheWrite,
        cache_read_input_tokens: usage.cacheRead,
        cache_creation_input_tokens: usage.cacheWrite,
        cache_creation: { ephemeral_5m_input_tokens: usage.cacheWrite, ephemeral_1h_input_tokens: 0 },
        output_tokens: output,
        server_tool_use: null,
        service_tier: 'standard',
      },
    })
  }

  const server = createServer((request, response) => {
    void (async () => {
      const text = await readBody(request)
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        send(response, 400, { error: { message: 'request body is not JSON', type: 'invalid_request_error' } })
        return
      }
      const record = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
      if (request.method === 'POST' && request.url === '/v1/chat/completions') chat(record, response)
      else if (request.method === 'POST' && request.url === '/v1/responses') responses(record, response)
      else if (request.method === 'POST' && request.url === '/v1/messages') messages(record, response)
      else send(response, 404, { error: { message: `no route ${request.method} ${request.url}`, type: 'not_found_error' } })
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    usages,
    reasoningItems,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  }
}
