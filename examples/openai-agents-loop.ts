/**
 * Example: an OpenAI Agents SDK run (`@openai/agents` 0.14.3, `OpenAIProvider` on Chat
 * Completions, or on Responses with `api: 'responses'`) with the library's `callModelInputFilter` and model-provider wrapper, and a
 * `MemorySession` holding the conversation across two runs. The SDK runs its own loop (model
 * call, tools, model call, ...); before every model call the filter brings a manager in the
 * `openai-chat` format up to the run's input items and returns the view, and each response's
 * usage goes to the meter. The session must keep the conversation as the model and the tools
 * produced it: `run` compares it with the same two runs without the filter. `test/framework-loops.test.ts`
 * runs it against a local fake server that checks every request against the Responses rules;
 * point `baseURL` at the real API to run it for real.
 *
 * `filter: 'none'` runs the same loop without the filter, for comparison.
 */
import { createHash } from 'node:crypto'
import { Agent, MemorySession, OpenAIProvider, Runner, setTracingDisabled, tool, type AgentInputItem } from '@openai/agents'
import { z } from 'zod'
import { makeContextCallModelInputFilter, makeContextModelProvider } from '../src/index.js'
import { SYSTEM_PROMPT, TASK, readFile, startLoop, type AgentLoopOptions, type AgentLoopReport } from './support/agent-loop.js'

/** The follow-up of the second run, in the same session. */
export const FOLLOW_UP = 'Now tell me where the parser is built.'

/** What `run` reports beyond the common loop report. */
export interface OpenAIAgentsLoopResult extends AgentLoopReport {
  /** The final output of each run. */
  readonly outputs: ReadonlyArray<string | null>
  /**
   * The session after both runs: how many items, a SHA-256 of their JSON (equal digests: equal
   * sessions), whether every tool result in it is the tool's full output, and whether the
   * compaction notice or a truncation marker got into it.
   */
  readonly sessionItemCount: number
  readonly sessionDigest: string
  readonly sessionToolResultsIntact: boolean
  readonly sessionHasNotice: boolean
  readonly sessionHasTruncation: boolean
  /** The input items of each model call as the filter returned them (after the filter: what the model saw). */
  readonly sentInputLengths: ReadonlyArray<number>
  /** The last response's `usage.inputTokens` and the run totals, for comparison with the meter. */
  readonly lastInputTokens: number | null
  readonly runInputTokens: ReadonlyArray<number>
}

/** Options of the Agents SDK loop: the common ones and whether the filter runs (default it does). */
export interface OpenAIAgentsLoopOptions extends AgentLoopOptions {
  readonly filter?: 'context-simple' | 'none'
  /** Which API the SDK's OpenAI provider calls: Chat Completions (default) or Responses. */
  readonly api?: 'chat' | 'responses'
  /** Whether the second run (the follow-up in the same session) runs; default true. */
  readonly followUp?: boolean
}

export async function run(options: OpenAIAgentsLoopOptions): Promise<OpenAIAgentsLoopResult> {
  setTracingDisabled(true)
  // startLoop adds the system prompt and the task; the SDK gives both itself (instructions,
  // input), so clear them: the filter's first call replaces the history with the run's input.
  const { context, tokenBudget, report } = await startLoop('openai-chat', options)
  await context.clear()

  const readFileTool = tool({ name: 'read_file', description: 'Read a source file', parameters: z.object({ path: z.string() }), execute: async ({ path }) => readFile(path) })
  const agent = new Agent({ name: 'coder', instructions: SYSTEM_PROMPT, model: options.model ?? 'gpt-5', tools: [readFileTool] })
  const provider = new OpenAIProvider({ apiKey: options.apiKey ?? 'sk-local-test', baseURL: `${options.baseURL}/v1`, useResponses: options.api === 'responses' })
  const withFilter = options.filter !== 'none'
  const filter = makeContextCallModelInputFilter(context, { tokenBudget })
  const sentInputLengths: Array<number> = []
  let lastInputTokens: number | null = null
  const runner = new Runner({
    modelProvider: withFilter ? makeContextModelProvider(context, provider) : provider,
    callModelInputFilter: async (args) => {
      const result = withFilter ? await filter(args) : { input: [...args.modelData.input], instructions: args.modelData.instructions }
      sentInputLengths.push(result.input.length)
      return result as { input: Array<AgentInputItem>; instructions?: string }
    },
  })
  const session = new MemorySession()
  const outputs: Array<string | null> = []
  const runInputTokens: Array<number> = []
  for (const input of options.followUp === false ? [TASK] : [TASK, FOLLOW_UP]) {
    try {
      const result = await runner.run(agent, input, { session, maxTurns: options.maxRequests ?? 20 })
      outputs.push(typeof result.finalOutput === 'string' ? result.finalOutput : null)
      lastInputTokens = result.rawResponses.at(-1)?.usage.inputTokens ?? null
      runInputTokens.push(result.state.usage.inputTokens)
    } catch (error) {
      outputs.push(`failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  const sessionItems = await session.getItems()
  const calls = new Map(sessionItems.flatMap((item) => (item.type === 'function_call' ? [[item.callId, (JSON.parse(item.arguments) as { path: string }).path] as const] : [])))
  const results = sessionItems.filter((item) => item.type === 'function_call_result')
  const sessionToolResultsIntact =
    results.length > 0 && results.every((item) => item.type === 'function_call_result' && typeof item.output === 'object' && 'text' in item.output && item.output.text === readFile(calls.get(item.callId) ?? ''))
  const common = await report({ requests: sentInputLengths.length, finalText: outputs.at(-1) ?? null })
  const json = JSON.stringify(sessionItems)
  return {
    ...common,
    outputs,
    sessionItemCount: sessionItems.length,
    sessionDigest: createHash('sha256').update(json).digest('hex'),
    sessionToolResultsIntact,
    sessionHasNotice: json.includes('<system-reminder source="context-compaction">'),
    sessionHasTruncation: json.includes('[truncated:'),
    sentInputLengths,
    lastInputTokens,
    runInputTokens,
  }
}
