/**
 * Example: deterministic replay. A recording (RECORDING.md) built in code is folded through the
 * pure core with `replayRecording`; the output has one line per request with the view, the hook
 * events and both statistics objects. Then a live session captured with `makeRecorder` is
 * replayed and gives the very views the live manager returned. See docs/recording-and-replay.md.
 */
import { isLeft } from 'fp-ts/lib/Either.js'
import {
  ContextManager,
  DEFAULT_REPLAY_NOW,
  decodeConfig,
  fixedClock,
  makeCachedEstimator,
  makeRecorder,
  parseRecordingJsonl,
  replayRecording,
  serializeRecording,
  silentLogger,
  type Message,
  type Recording,
  type RecordingOp,
  type ReplayResult,
} from '../src/index.js'

/** What `run` reports; `test/examples.test.ts` asserts on it. */
export interface ReplayExampleResult {
  readonly outputLines: number
  readonly opIndexes: ReadonlyArray<number>
  readonly eventsPerLine: ReadonlyArray<ReadonlyArray<string>>
  readonly viewSizes: ReadonlyArray<number | null>
  readonly levelAfterLastRequest: number | null
  readonly measuredOnLastLine: number | null
  readonly jsonLinesRoundTripSame: boolean
  readonly liveCompactionLevel: number | null
  readonly liveViewsReplayed: boolean
}

/** Decode a recording's configuration and fold it through the core. */
const replay = (recording: Recording): ReplayResult => {
  const decoded = decodeConfig(recording.config)
  if (isLeft(decoded)) throw decoded.left
  return replayRecording(recording, { config: decoded.right.config, estimate: makeCachedEstimator() })
}

const turn = (i: number): RecordingOp[] => [
  { op: 'add_message', message: { role: 'assistant', content: '', tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'grep', arguments: `{"pattern":"TODO ${i}"}` } }] } },
  { op: 'add_message', message: { role: 'tool', tool_call_id: `c${i}`, content: `src/file${i}.ts:${i}: TODO remove this\n`.repeat(40) } },
]

export async function run(): Promise<ReplayExampleResult> {
  // 1. A recording built in code: header config, then operations in the order they happened.
  const recording: Recording = {
    config: { compaction_notice_enabled: false, protected_tool_results: 1 },
    now: DEFAULT_REPLAY_NOW,
    ops: [
      { op: 'add_message', message: { role: 'system', content: 'You are a refactoring agent.' } },
      { op: 'add_message', message: { role: 'user', content: 'Remove every TODO in src/.' } },
      { op: 'get_messages_for_request', token_budget: 3_000 },
      ...turn(1),
      { op: 'llm_response', usage: { input_tokens: 650, output_tokens: 40, cache_read_tokens: 0, cache_write_tokens: 0 } },
      ...turn(2),
      ...turn(3),
      { op: 'get_messages_for_request', token_budget: 3_000 },
      ...turn(4),
      { op: 'get_messages_for_request', token_budget: 1_500 },
    ],
  }
  const result = replay(recording)

  // The JSON Lines form reads back to the same recording, and replays to the same output.
  const text = serializeRecording(recording)
  const again = replay(parseRecordingJsonl(text, 'example.recording.jsonl'))

  // 2. A live session captured with makeRecorder, then replayed: the views are the live ones.
  const config = { max_tokens: 2_000, compaction_notice_enabled: false }
  const recorder = makeRecorder(config)
  const manager = new ContextManager(config, { recorder, clock: fixedClock('2026-03-01T09:30:00.000+00:00'), logger: silentLogger })
  const liveViews: Message[][] = []
  await manager.addMessage({ role: 'user', content: 'Summarize the incident log.' })
  for (let i = 0; i < 6; i += 1) {
    await manager.addMessage({ role: 'assistant', content: `Reading part ${i}.` })
    await manager.addMessage({ role: 'user', content: `Part ${i}: ${'timeout while connecting to db-primary; retrying. '.repeat(24)}` })
    liveViews.push(await manager.getMessagesForRequest())
  }
  const replayed = replay(recorder.toRecording())

  return {
    outputLines: result.lines.length,
    opIndexes: result.lines.map((line) => line.op_index),
    eventsPerLine: result.lines.map((line) => line.events.map((event) => event.name)),
    viewSizes: result.lines.map((line) => (line.view === null ? null : line.view.length)),
    levelAfterLastRequest: (result.lines.at(-1)?.compaction_stats as { strategy_level?: number } | null)?.strategy_level ?? null,
    measuredOnLastLine: (result.lines.at(-1)?.token_meter_stats as { measured_tokens?: number | null } | null)?.measured_tokens ?? null,
    jsonLinesRoundTripSame: JSON.stringify(again.lines) === JSON.stringify(result.lines),
    liveCompactionLevel: manager.lastCompactionStats?.strategy_level ?? null,
    liveViewsReplayed: JSON.stringify(replayed.lines.map((line) => line.view)) === JSON.stringify(liveViews),
  }
}
