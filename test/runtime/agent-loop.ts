/**
 * A small agent loop that imports only the main entry, so it runs as one bundle in any runtime
 * (test/runtime/runtime-loop.test.ts runs it in Node, headless Chromium, a Web Worker, Deno and
 * Bun). For each of the `anthropic` and `ai-sdk` formats: a manager with hooks and a memory spill
 * writer, a scripted model that reads files for 12 rounds (long tool results), a history that
 * compacts under a small budget, every request's view checked for tool pairing (the format's own
 * rules and an independent id match here), a system prompt factory and a `context:compaction`
 * listener that call back into the manager after awaits of their own (re-entrancy), the provider's
 * usage fed back, and a snapshot restored. Then one manager with the default spill writer: with
 * no file system its spills fail and the results stay whole.
 */
import { BUNDLED_WINDOW_TABLE, ContextManager, findFormatViolations, lookupModel, makeMemorySpillWriter, makeMittHooks, memoryLogger, type MessageFormat, type MessageInput } from '../../src/index.js'

/** What one format's loop did; `problems` lists every failed check (empty when all held). */
export interface FormatLoopReport {
  readonly format: string
  readonly requests: number
  readonly historyMessages: number
  readonly compactions: number
  readonly spilled: number
  readonly maxViewTokens: number
  readonly budget: number
  readonly listenerCalls: number
  readonly factoryCalls: number
  readonly restoredViewEqual: boolean
  readonly problems: ReadonlyArray<string>
}

/** What the whole loop did in one runtime. */
export interface RuntimeLoopReport {
  readonly runtime: string
  readonly asyncLocalStorage: boolean
  readonly formats: ReadonlyArray<FormatLoopReport>
  /** The default spill writer's outcome: warnings about failed spills, the file name the view points at (null: none), whether the result stayed whole. */
  readonly defaultSpill: { readonly failures: number; readonly pointer: string | null; readonly wholeResultKept: boolean }
  readonly windowOfGpt4o: number | null
}

const TOKEN_BUDGET = 3_000
const ROUNDS = 12

const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))

/** The tool: a long file listing, so old results get truncated and spilled. */
const readFile = (path: string, round: number): string =>
  Array.from({ length: 40 }, (_, i) => `${String(i + 1).padStart(4)} | export const ${path.replace(/\W/g, '_')}_${round}_${i} = compute(${i}) // line of output`).join('\n')

/** Tool-call ids and tool-result ids of a view, read independently of the library's checker. */
const pairing = (format: MessageFormat, view: unknown): { readonly calls: string[]; readonly results: string[] } => {
  const calls: string[] = []
  const results: string[] = []
  const messages = format === 'anthropic' ? (view as { messages: Array<{ content: unknown }> }).messages : (view as Array<{ content: unknown }>)
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue
    for (const part of message.content as Array<Record<string, unknown>>) {
      if (part.type === 'tool_use' || part.type === 'tool-call') calls.push(String(part.id ?? part.toolCallId))
      if (part.type === 'tool_result' || part.type === 'tool-result') results.push(String(part.tool_use_id ?? part.toolCallId))
    }
  }
  return { calls, results }
}

/** The scripted model's turn `round` and the tool results that answer it, in `format`. */
const turn = (format: MessageFormat, round: number): { readonly assistant: MessageInput; readonly results: MessageInput } => {
  const ids = [`call_${round}a`, `call_${round}b`]
  const paths = [`src/parser/${round}.ts`, `src/lexer/${round}.ts`]
  if (format === 'anthropic') {
    return {
      assistant: { role: 'assistant', content: [{ type: 'text', text: `Reading round ${round}.` }, ...ids.map((id, k) => ({ type: 'tool_use', id, name: 'read_file', input: { path: paths[k] } }))] },
      results: { role: 'user', content: ids.map((id, k) => ({ type: 'tool_result', tool_use_id: id, content: readFile(paths[k], round) })) },
    }
  }
  return {
    assistant: { role: 'assistant', content: [{ type: 'text', text: `Reading round ${round}.` }, ...ids.map((id, k) => ({ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: paths[k] } }))] },
    results: { role: 'tool', content: ids.map((id, k) => ({ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: readFile(paths[k], round) } })) },
  }
}

const runFormat = async (format: 'anthropic' | 'ai-sdk'): Promise<FormatLoopReport> => {
  const problems: string[] = []
  const hooks = makeMittHooks()
  const logger = memoryLogger()
  const spill = makeMemorySpillWriter()
  const config = { max_tokens: TOKEN_BUDGET, tool_result_budget_tokens: 300, tool_result_spill_dir: '/spill', protected_tool_results: 1 }
  const context = new ContextManager(config, { format, hooks, logger, spillWriter: spill })
  let compactions = 0
  let listenerCalls = 0
  let factoryCalls = 0
  hooks.register('context:compaction', async () => {
    compactions += 1
    await pause() // re-entrant after an await of its own: no AsyncLocalStorage in a browser
    const stored = await context.getMessages()
    if (stored.length === 0) problems.push('a compaction listener saw an empty history')
    listenerCalls += 1
  })
  await context.setSystemPromptFactory(async () => {
    await pause()
    factoryCalls += 1
    return `You are a careful coding agent. ${(await context.getMessages()).length} messages so far.`
  })
  await context.addMessage({ role: 'user', content: [{ type: 'text', text: 'Read the parser sources and tell me where the tokenizer is built.' }] })
  let maxViewTokens = 0
  let requests = 0
  for (let round = 0; round < ROUNDS; round += 1) {
    const compactionsBefore = compactions
    const view = await context.getMessagesForRequest()
    requests += 1
    for (const problem of findFormatViolations(format, view)) problems.push(`request ${requests}: ${problem}`)
    const { calls, results } = pairing(format, view)
    const unanswered = calls.filter((id) => !results.includes(id))
    const orphans = results.filter((id) => !calls.includes(id))
    if (unanswered.length > 0 || orphans.length > 0) problems.push(`request ${requests}: unpaired ${[...unanswered, ...orphans].join(', ')}`)
    // the view's size: what the compaction left when this request compacted, else what it measured
    const meter = context.lastTokenMeterStats
    const viewTokens = compactions > compactionsBefore ? (context.lastCompactionStats?.after_tokens ?? Infinity) : (meter?.used_tokens ?? Infinity)
    maxViewTokens = Math.max(maxViewTokens, viewTokens)
    if (meter !== null && viewTokens > meter.budget) problems.push(`request ${requests}: a view of ${viewTokens} tokens over the budget of ${meter.budget}`)
    // the provider's usage, as the SDK would report it (about 4 characters a token)
    const input = Math.round(JSON.stringify(view).length / 4)
    await context.onLlmResponse({ usage: format === 'anthropic' ? { input_tokens: input, output_tokens: 40 } : { inputTokens: input, outputTokens: 40 } })
    const { assistant, results: answer } = turn(format, round)
    await context.addMessage(assistant)
    await context.addMessage(answer)
  }
  const finalView = await context.getMessagesForRequest()
  requests += 1
  for (const problem of findFormatViolations(format, finalView)) problems.push(`final request: ${problem}`)
  await context.idle()
  const saved = JSON.parse(JSON.stringify(await context.snapshot()))
  const restored = await ContextManager.restore(saved, { spillWriter: makeMemorySpillWriter(), logger: memoryLogger() })
  const again = await restored.getMessagesForRequest()
  // the factory is not part of a snapshot: compare what follows the system prompt
  const body = (view: unknown): string => JSON.stringify(format === 'anthropic' ? (view as { messages: unknown }).messages : (view as Array<{ role: string }>).filter((message) => message.role !== 'system'))
  for (const warning of logger.messages('warning')) problems.push(`warning: ${warning}`)
  return {
    format,
    requests,
    historyMessages: (await context.getMessages()).length,
    compactions,
    spilled: spill.files.size,
    maxViewTokens,
    budget: TOKEN_BUDGET,
    listenerCalls,
    factoryCalls,
    restoredViewEqual: body(again) === body(finalView),
    problems,
  }
}

/**
 * A manager with the default spill writer, spilling into `spillDir`: with a file system (Node,
 * Deno, Bun) the file is written and the view points at it; without one (a browser, a worker)
 * the spill fails and the result stays whole.
 */
const runDefaultSpill = async (spillDir: string): Promise<RuntimeLoopReport['defaultSpill']> => {
  const logger = memoryLogger()
  const context = new ContextManager({ tool_result_ingress_cap_bytes: 600, tool_result_spill_dir: spillDir }, { logger })
  const long = readFile('src/big.ts', 0)
  await context.addMessage({ role: 'user', content: 'read it' })
  await context.addMessage({ role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] })
  await context.addMessage({ role: 'tool', tool_call_id: 'c1', content: long })
  const view = await context.getMessagesForRequest({ tokenBudget: 100_000 })
  await context.idle()
  const failures = logger.messages('warning').filter((line) => line.includes('spill')).length
  const pointer = view.map((message) => String(message.content)).join('\n').match(/tool-result-[\w-]+\.txt/)?.[0] ?? null
  return { failures, pointer, wholeResultKept: view.some((message) => message.role === 'tool' && message.content === long) }
}

const runtimeName = (): string => {
  const global = globalThis as { Deno?: { version: { deno: string } }; Bun?: { version: string }; process?: { versions?: { node?: string } }; navigator?: { userAgent?: string }; WorkerGlobalScope?: unknown }
  if (global.Deno !== undefined) return `Deno ${global.Deno.version.deno}`
  if (global.Bun !== undefined) return `Bun ${global.Bun.version}`
  if (typeof global.process?.versions?.node === 'string') return `Node ${global.process.versions.node}`
  const agent = global.navigator?.userAgent ?? 'unknown'
  return `${global.WorkerGlobalScope !== undefined ? 'Web Worker' : 'page'}: ${agent}`
}

/** Runs the loop in both formats and the default-spill check into `spillDir`; never throws for a failed check (see `problems`). */
export const runRuntimeLoop = async (spillDir: string): Promise<RuntimeLoopReport> => {
  const hasAls =
    typeof (globalThis as { AsyncLocalStorage?: unknown }).AsyncLocalStorage === 'function' ||
    typeof (globalThis as { process?: { getBuiltinModule?: (id: string) => { AsyncLocalStorage?: unknown } | undefined } }).process?.getBuiltinModule?.('node:async_hooks')?.AsyncLocalStorage === 'function'
  return {
    runtime: runtimeName(),
    asyncLocalStorage: hasAls,
    formats: [await runFormat('anthropic'), await runFormat('ai-sdk')],
    defaultSpill: await runDefaultSpill(spillDir),
    windowOfGpt4o: lookupModel(BUNDLED_WINDOW_TABLE, 'gpt-4o-2024-08-06')?.context_window ?? null,
  }
}
