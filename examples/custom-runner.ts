/**
 * Example: a custom effect runner. The manager hands every effect of the pure core to `run`; this
 * runner records them all, keeps spill files in a Map instead of on disk, and answers each
 * `write_spill` with a `spill_written` event through `dispatch`. See docs/embedding.md.
 */
import { ContextManager, fixedClock, type Effect, type EffectRunner, type Message } from '../src/index.js'

/** What `run` reports; `test/examples.test.ts` asserts on it. */
export interface CustomRunnerResult {
  readonly effectTypes: ReadonlyArray<string>
  readonly spillPaths: ReadonlyArray<string>
  readonly spilledContentIsOriginal: boolean
  readonly viewPointsAtSpill: boolean
  readonly spillsKnownToCore: ReadonlyArray<string>
  readonly writesOnSecondRequest: number
  readonly hookNames: ReadonlyArray<string>
}

/** A runner that interprets effects itself. It never awaits `dispatch` inside `run` (that would deadlock the queue). */
export const makeRecordingRunner = (): EffectRunner & { readonly effects: Effect[]; readonly files: Map<string, string> } => {
  const effects: Effect[] = []
  const files = new Map<string, string>()
  return {
    effects,
    files,
    run: async (effect, dispatch) => {
      effects.push(effect)
      switch (effect.type) {
        case 'write_spill':
          files.set(effect.path, effect.content)
          void dispatch({ type: 'spill_written', path: effect.path })
          return
        case 'emit_hook': // a real runner would call its hook bus here
        case 'log': // ... and its logger here
        case 'request_summary': // unused: this example runs the progressive strategy
        case 'cancel_summary':
        case 'raise_error': // the manager itself throws CompactionSkipLimitError
          return
      }
    },
  }
}

export async function run(): Promise<CustomRunnerResult> {
  const runner = makeRecordingRunner()
  const context = new ContextManager(
    { tool_result_budget_tokens: 25, tool_result_spill_dir: '/virtual/spill', protected_tool_results: 1, compaction_notice_enabled: false },
    { runner, clock: fixedClock('2026-01-01T00:00:00.000+00:00') },
  )
  const build = `ERROR in src/app.ts: ${'x'.repeat(40)}\n`.repeat(40)
  const history: Message[] = [
    { role: 'user', content: 'Why does the build fail?' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'b1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"npm run build"}' } }] },
    { role: 'tool', tool_call_id: 'b1', content: build },
    { role: 'assistant', content: '', tool_calls: [{ id: 'b2', type: 'function', function: { name: 'bash', arguments: '{"cmd":"npm test"}' } }] },
    { role: 'tool', tool_call_id: 'b2', content: 'tests: 41 passed, 1 failed' },
    { role: 'user', content: 'Fix it.' },
  ]
  for (const message of history) await context.addMessage(message)

  const view = await context.getMessagesForRequest({ tokenBudget: 700 })
  await context.idle() // the spill_written answer has been applied
  const spillPaths = runner.effects.flatMap((effect) => (effect.type === 'write_spill' ? [effect.path] : []))
  const truncated = view.find((message) => message._truncated === true)

  const before = runner.effects.length
  await context.getMessagesForRequest({ tokenBudget: 700 })
  const writesOnSecondRequest = runner.effects.slice(before).filter((effect) => effect.type === 'write_spill').length

  return {
    effectTypes: [...new Set(runner.effects.map((effect) => effect.type))],
    spillPaths,
    spilledContentIsOriginal: spillPaths.length > 0 && runner.files.get(spillPaths[0]) === build,
    viewPointsAtSpill: truncated !== undefined && String(truncated.content).includes(`read ${spillPaths[0]} for the full result`),
    spillsKnownToCore: [...context.state.toolResults.spillWritten],
    writesOnSecondRequest,
    hookNames: runner.effects.flatMap((effect) => (effect.type === 'emit_hook' ? [effect.name] : [])),
  }
}
