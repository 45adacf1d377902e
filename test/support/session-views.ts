/**
 * Views of real and synthetic sessions in every provider format, made by a real `ContextManager`
 * (the request path the SDK helpers use: conversion, `provider_rules`, cache breakpoints,
 * freezing): a recording's operations are applied to a manager in the recording's message format
 * and, at sampled requests, a view is asked for in each provider format at the source's budget.
 * Real sessions: the repository's fixtures/sessions and, when the shared folder is present
 * (../shared/sessions), its sessions that fixtures/ does not hold. Synthetic sessions:
 * property-tests/format-sessions.ts rendered in each format, and the content kinds of
 * `CONTENT_KIND_HISTORIES`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, join, relative, resolve } from 'node:path'
import fc from 'fast-check'
import { PROVIDER_FORMATS, type MessageFormat, type ProviderFormat } from '../../src/core/formats/carrier.js'
import type { Recording, RecordingOp } from '../../src/core/replay/recording.js'
import { ContextManager } from '../../src/shell/context-manager.js'
import { importClaudeCodeSessions } from '../../src/shell/importers/claude-code.js'
import { loadRecordings } from '../../src/shell/importers/detect.js'
import { memoryLogger } from '../../src/shell/logger.js'
import { readTextFile } from '../../src/shell/read-text.js'
import type { MessageInput } from '../../src/core/messages/message.js'
import { makeSessionArb, render } from '../../property-tests/format-sessions.js'
import { FIXTURES, ROOT } from './fixtures.js'

/** A session to take views of: where it comes from, its message format, its operations and the budget of its views (tokens). */
export interface ViewSource {
  readonly name: string
  readonly kind: 'real' | 'synthetic' | 'refusable'
  readonly format: MessageFormat
  readonly ops: ReadonlyArray<RecordingOp>
  readonly budget: number
  readonly config?: Readonly<Record<string, unknown>>
  /** The manager option `repair` (pairing repair of provider-format views); default false. */
  readonly repair?: boolean
  /** Views at this many requests of the source instead of the run's number (Infinity: every request). */
  readonly samples?: number
}

/** One view: its source, the request it answers (index among the source's requests), its format, the view. */
export interface SampledView {
  readonly source: ViewSource
  readonly request: number
  readonly format: ProviderFormat
  readonly view: unknown
}

/** The shared folder beside the repository (absent in CI clones of the repository alone). */
export const SHARED_SESSIONS = resolve(ROOT, '../shared/sessions')

/** Budgets (tokens) at which the sessions of each importer compact. */
const BUDGETS = { 'claude-code': 30_000, codex: 30_000, 'openai-chat': 3_000, recording: 30_000 } as const

/** Session files under `root` (`.jsonl`, `.json`, and their `.gz`), README and LICENSE left out. */
const sessionFiles = (root: string): ReadonlyArray<string> => {
  if (!existsSync(root)) return []
  const out: Array<string> = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry)
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.(jsonl|json)(\.gz)?$/.test(entry)) out.push(path)
    }
  }
  walk(root)
  return out
}

/** A session name without the `.gz`, relative to its sessions folder (`claude-code/short.jsonl`). */
const nameOf = (root: string, path: string): string => relative(root, path).replace(/\.gz$/, '')

/**
 * The recordings of one session file, each with its message format: Claude Code sessions are
 * imported natively (Anthropic `MessageParam`s: thinking, images, result blocks); at most
 * `maxPerFile` recordings (the tau-bench file holds a hundred trajectories).
 */
const sourcesOfFile = (path: string, name: string, maxPerFile: number): ReadonlyArray<ViewSource> => {
  const text = readTextFile(path)
  const loaded = loadRecordings(text, basename(path), 'auto')
  const native = loaded.format === 'claude-code'
  const recordings: ReadonlyArray<Recording> = native ? importClaudeCodeSessions(text, basename(path), { native: true }) : loaded.recordings
  return recordings.slice(0, maxPerFile).map((recording) => ({
    name: recording.session === undefined ? name : `${name}#${recording.session}`,
    kind: 'real',
    format: recording.format ?? (native ? 'anthropic' : 'contract'),
    ops: recording.ops,
    budget: BUDGETS[loaded.format],
  }))
}

/** The real sessions of fixtures/sessions. */
export const fixtureSources = (maxPerFile = 4): ReadonlyArray<ViewSource> => {
  const root = resolve(FIXTURES, 'sessions')
  return sessionFiles(root).flatMap((path) => sourcesOfFile(path, nameOf(root, path), maxPerFile))
}

/** The sessions of ../shared/sessions that fixtures/sessions does not hold (none without the shared folder). */
export const sharedOnlySources = (maxPerFile = 4): ReadonlyArray<ViewSource> => {
  const fixtures = new Set(sessionFiles(resolve(FIXTURES, 'sessions')).map((path) => nameOf(resolve(FIXTURES, 'sessions'), path)))
  return sessionFiles(SHARED_SESSIONS)
    .filter((path) => !fixtures.has(nameOf(SHARED_SESSIONS, path)))
    .flatMap((path) => sourcesOfFile(path, `shared/${nameOf(SHARED_SESSIONS, path)}`, maxPerFile))
}

const addAll = (messages: ReadonlyArray<unknown>): ReadonlyArray<RecordingOp> => messages.map((message) => ({ op: 'add_message', message: message as never }))

/**
 * `count` synthetic sessions in each provider format (property-tests/format-sessions.ts), drawn
 * with `seed`, half of them with interrupted parallel turns mid-history (those views are asked
 * for with the manager's opt-in `repair`, as the format properties do): a request after each turn
 * the skeleton marks and after the last one where a loop would ask the model (after a user turn
 * or the results of the calls, never right after an answer or while a call has no result and no
 * user text follows), at the skeleton's budget.
 */
export const syntheticSources = (count: number, seed: number): ReadonlyArray<ViewSource> => {
  const whole = fc.sample(makeSessionArb(false), { numRuns: Math.ceil(count / 2), seed })
  const interrupted = fc.sample(makeSessionArb(true), { numRuns: Math.floor(count / 2), seed: seed + 1 })
  const sessions = [...whole.map((session) => ({ session, repair: false })), ...interrupted.map((session) => ({ session, repair: true }))]
  return PROVIDER_FORMATS.flatMap((format) =>
    sessions.map(({ session, repair }, n): ViewSource => {
      const ops: Array<RecordingOp> = [{ op: 'add_message', message: { role: 'system', content: 'You are a careful coding agent.' } as never }]
      session.turns.forEach((turn, i) => {
        ops.push(...addAll(render(format, turn, i)))
        // a loop asks the model after a user turn or after the results of its calls, never
        // right after its own answer or while a call has no result (and no user text after it)
        const asks = turn.kind === 'user' || (turn.kind === 'tools' && (turn.answered === turn.calls.length || turn.after !== null))
        if (asks && (session.requests[i % session.requests.length] || i === session.turns.length - 1)) ops.push({ op: 'get_messages_for_request' })
      })
      const { max_tokens: budget, ...config } = session.config as { max_tokens: number } & Record<string, unknown>
      return { name: `synthetic/${format}/${seed}-${n}${repair ? '-interrupted' : ''}`, kind: 'synthetic', format, ops, budget, config, repair }
    }),
  )
}

/**
 * Histories of the content kinds real sessions rarely hold, one per format: images, documents,
 * refusals, reasoning-only turns, computer / MCP / shell calls, server tools, approvals, each
 * followed by enough file reads that the views compact at the budget given.
 */
export const CONTENT_KIND_HISTORIES: Readonly<Record<ProviderFormat, ReadonlyArray<unknown>>> = {
  anthropic: [
    { role: 'user', content: [{ type: 'text', text: 'What is in this picture and this PDF?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }, { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'A small document.' } }] },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'Look at both.', signature: 'sig-EqQBCkgIAhAB' }, { type: 'text', text: 'A pixel and a note.' }] },
    { role: 'user', content: 'Search the web for the lexer docs.' },
    { role: 'assistant', content: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'lexer docs' } }, { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.com/lexer', title: 'Lexer', encrypted_content: 'enc', page_age: null }] }, { type: 'text', text: 'Found the lexer docs.' }] },
  ],
  'openai-chat': [
    { role: 'developer', content: 'Answer briefly.' },
    { role: 'user', content: [{ type: 'text', text: 'Describe this image.' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
    { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
    { role: 'user', content: 'Then read the lexer.' },
  ],
  'openai-responses': [
    { role: 'user', content: [{ type: 'input_text', text: 'Click the button, then list the tools.' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' }] },
    { type: 'reasoning', id: 'rs_k1', summary: [], encrypted_content: 'enc-k1' },
    { type: 'computer_call', id: 'cu_k1', call_id: 'call_cu1', action: { type: 'click', button: 'left', x: 10, y: 20 }, pending_safety_checks: [], status: 'completed' },
    { type: 'computer_call_output', call_id: 'call_cu1', output: { type: 'computer_screenshot', image_url: 'data:image/png;base64,iVBORw0KGgo=' }, acknowledged_safety_checks: [] },
    { type: 'reasoning', id: 'rs_k2', summary: [], encrypted_content: 'enc-k2' },
    { type: 'mcp_list_tools', id: 'mcpl_k1', server_label: 'files', tools: [{ name: 'read', input_schema: { type: 'object' } }] },
    { type: 'message', role: 'assistant', id: 'msg_k1', status: 'completed', content: [{ type: 'output_text', text: 'Clicked; the server has one tool.', annotations: [] }] },
    { role: 'user', content: 'Read the lexer.' },
  ],
  'ai-sdk': [
    { role: 'user', content: [{ type: 'text', text: 'What is in this picture?' }, { type: 'image', image: 'iVBORw0KGgo=', mediaType: 'image/png' }] },
    { role: 'assistant', content: [{ type: 'reasoning', text: 'Look.', providerOptions: { anthropic: { signature: 'sig-1' } } }, { type: 'text', text: 'A pixel.' }] },
    { role: 'user', content: 'Read the lexer.' },
  ],
}

/** `rounds` file reads in `format` (one call, its result of ~`size` characters), each a request. */
const fileReads = (format: ProviderFormat, rounds: number, size: number): ReadonlyArray<RecordingOp> =>
  Array.from({ length: rounds }, (_, r): ReadonlyArray<RecordingOp> => {
    const text = Array.from({ length: Math.ceil(size / 40) }, (_, i) => `${String(i + 1).padStart(4)} | const v${r}_${i} = lex(${i})`).join('\n')
    const calls = render(format, { kind: 'tools', thinking: false, text: '', calls: [{ id: `read_${r}`, input: { path: `src/f${r}.ts` }, result: text, error: false }], answered: 1, after: null }, r)
    return [...addAll(calls), { op: 'get_messages_for_request' }]
  }).flat()

/** The content-kind histories as sources: the history, then file reads that make the views compact at 2,000 tokens. */
export const contentKindSources = (): ReadonlyArray<ViewSource> =>
  PROVIDER_FORMATS.map((format) => ({
    name: `content-kinds/${format}`,
    kind: 'synthetic',
    format,
    ops: [...addAll(CONTENT_KIND_HISTORIES[format]), { op: 'get_messages_for_request' }, ...fileReads(format, 8, 1_600), ...(format === 'ai-sdk' ? AI_SDK_APPROVAL_TAIL : [])],
    budget: 2_000,
    samples: Infinity,
  }))

/**
 * After the AI SDK history's file reads: a call that needs approval, its approval (a request
 * whose compacted view ends with it: the SDK executes the approved call on that request, so
 * nothing may come after it), the call's result and the answer.
 */
const AI_SDK_APPROVAL_TAIL: ReadonlyArray<RecordingOp> = [
  ...addAll([
    { role: 'user', content: 'Now deploy to prod.' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'deploy', input: { target: 'prod' } }, { type: 'tool-approval-request', approvalId: 'approval-w1', toolCallId: 'w1' }] },
    { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'approval-w1', approved: true }] },
  ]),
  { op: 'get_messages_for_request' },
  ...addAll([
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'w1', toolName: 'deploy', output: { type: 'text', value: 'deployed to prod' } }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Deployed.' }] },
  ]),
  { op: 'get_messages_for_request' },
]

/** Counts of what a source's manager refused: messages `addMessage` rejected (a typed error), requests that threw. */
export interface SourceErrors {
  readonly refusedMessages: Array<string>
  readonly failedRequests: Array<string>
}

/**
 * The views of `source`: its operations applied to a manager in its format (configuration
 * `config` over the source's own), a view in each of `formats` at `samples` requests spread evenly
 * over its requests (the last one included). A message `addMessage` refuses is counted in
 * `errors.refusedMessages` and left out; a request that throws in `errors.failedRequests`.
 */
export async function* viewsOf(
  source: ViewSource,
  options: { readonly samples: number; readonly formats?: ReadonlyArray<ProviderFormat>; readonly config?: Readonly<Record<string, unknown>>; readonly errors?: SourceErrors },
): AsyncGenerator<SampledView> {
  const formats = options.formats ?? PROVIDER_FORMATS
  const manager = new ContextManager({ ...source.config, ...options.config }, { format: source.format, repair: source.repair === true, logger: memoryLogger() })
  const requests = source.ops.filter((op) => op.op === 'get_messages_for_request').length
  const samples = source.samples ?? options.samples
  const step = Math.max(1, requests / samples)
  const sampled = new Set(Array.from({ length: Math.min(samples, requests) }, (_, i) => Math.min(requests - 1, Math.round(requests - 1 - i * step))))
  let request = -1
  for (const op of source.ops) {
    switch (op.op) {
      case 'add_message':
        try {
          await manager.addMessage(op.message as MessageInput)
        } catch (error) {
          options.errors?.refusedMessages.push(`${source.name}: ${error instanceof Error ? error.message : String(error)}`)
        }
        break
      case 'set_messages':
        try {
          await manager.setMessages(op.messages as ReadonlyArray<MessageInput>)
        } catch (error) {
          options.errors?.refusedMessages.push(`${source.name}: ${error instanceof Error ? error.message : String(error)}`)
        }
        break
      case 'clear':
        await manager.clear()
        break
      case 'set_system_prompt': {
        const content = op.content
        await manager.setSystemPromptFactory(async () => content)
        break
      }
      case 'get_messages_for_request':
        request += 1
        if (!sampled.has(request)) break
        for (const format of formats) {
          try {
            yield { source, request, format, view: await manager.getMessagesForRequest({ tokenBudget: source.budget, format }) }
          } catch (error) {
            options.errors?.failedRequests.push(`${source.name} request ${request} as ${format}: ${error instanceof Error ? error.message : String(error)}`)
          }
        }
        break
      default:
        break
    }
  }
}

/**
 * Input a provider refuses that only the history shows (`provider_rules` at request time), one
 * history per format: a tool result whose call never appeared (its call was never added), and in
 * Anthropic an open `server_tool_use`, in Responses a `computer_call_output` with no call. The
 * default for the provider formats (`repair`) leaves them out of the view; `warn` sends them.
 */
export const REFUSABLE_HISTORIES: Readonly<Record<ProviderFormat, ReadonlyArray<unknown>>> = {
  anthropic: [
    { role: 'user', content: 'Read the lexer.' },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_gone', content: 'a result of a call this history never held' }] },
    { role: 'assistant', content: [{ type: 'server_tool_use', id: 'srvtoolu_open', name: 'web_search', input: { query: 'lexer' } }] },
    { role: 'user', content: 'And the parser?' },
  ],
  'openai-chat': [
    { role: 'user', content: 'Read the lexer.' },
    { role: 'tool', tool_call_id: 'call_gone', content: 'a result of a call this history never held' },
    { role: 'user', content: 'And the parser?' },
  ],
  'openai-responses': [
    { role: 'user', content: 'Read the lexer.' },
    { type: 'function_call_output', call_id: 'call_gone', output: 'a result of a call this history never held' },
    { type: 'computer_call_output', call_id: 'call_cu_gone', output: { type: 'computer_screenshot', image_url: 'data:image/png;base64,iVBORw0KGgo=' } },
    { role: 'user', content: 'And the parser?' },
  ],
  'ai-sdk': [
    { role: 'user', content: 'Read the lexer.' },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_gone', toolName: 'read_file', output: { type: 'text', value: 'a result of a call this history never held' } }] },
    { role: 'user', content: 'And the parser?' },
  ],
}

/** The refusable histories as sources: a request after the history, then after file reads (compacting at 2,000 tokens). */
export const refusableSources = (): ReadonlyArray<ViewSource> =>
  PROVIDER_FORMATS.map((format) => ({
    name: `refusable/${format}`,
    kind: 'refusable',
    format,
    ops: [...addAll(REFUSABLE_HISTORIES[format]), { op: 'get_messages_for_request' }, ...fileReads(format, 4, 1_600)],
    budget: 2_000,
    samples: Infinity,
  }))
