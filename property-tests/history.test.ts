// The stored history (SPEC 1.3-1.5, 2.2, 2.4, 2.5, B-DM-11): get_messages() is exactly what was
// added, with metadata.timestamp stamped where it was absent and metadata._seq numbering it;
// requests (compaction included) never change it, except by one appended summary message on a
// successful swap. Inputs are deep-frozen, so any mutation of a caller's message throws.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '../src/core/messages/message.js'
import { DEFAULT_REPLAY_NOW } from '../src/core/replay/recording.js'
import { isPlainObject, isTruthy } from '../src/core/messages/values.js'
import { describeConfig, foldScenario, runProperty, scenarioArb, seqOfStored, type Scenario } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

/** SPEC 1.4, written out: timestamp added when the key is absent, then `_seq` set in place or last. */
const expectedAdded = (message: Message, seq: number): Message => {
  const metadata: Record<string, unknown> = isTruthy(message.metadata) && isPlainObject(message.metadata) ? { ...message.metadata } : {}
  if (!Object.prototype.hasOwnProperty.call(metadata, 'timestamp')) metadata.timestamp = DEFAULT_REPLAY_NOW
  metadata._seq = seq
  return { ...message, metadata }
}

/** SPEC 2.4: no timestamp, `_seq = i`. */
const expectedReplaced = (message: Message, seq: number): Message => ({
  ...message,
  metadata: { ...(isTruthy(message.metadata) && isPlainObject(message.metadata) ? message.metadata : {}), _seq: seq },
})

const checkHistory = (scenario: Scenario): void => {
  const { ops } = foldScenario(scenario)
  const summary = scenario.config.compaction_strategy === 'summary'
  let expected: Message[] = []
  let nextSeq = 0
  for (const record of ops) {
    const where = `op ${record.index} (${record.op.op}) with ${describeConfig(scenario)}`
    const { before, after, op } = record
    switch (op.op) {
      case 'add_message':
        expected.push(expectedAdded(op.message, nextSeq))
        nextSeq += 1
        break
      case 'set_messages':
        expected = op.messages.map(expectedReplaced)
        nextSeq = op.messages.length
        break
      case 'clear':
        expected = []
        nextSeq = 0
        break
      case 'get_messages_for_request': {
        // Compaction never edits stored messages: the old entries are the very same objects.
        expect(after.history.length === before.history.length || after.history.length === before.history.length + 1, where).toBe(true)
        for (let i = 0; i < before.history.length; i += 1) expect(after.history[i], where).toBe(before.history[i])
        expect([before.nextSeq, before.nextSeq + 1], where).toContain(after.nextSeq)
        if (!summary) expect(after.nextSeq, where).toBe(before.nextSeq)
        if (after.history.length > before.history.length) {
          // A successful swap appends exactly one summary message with the next `_seq`.
          const appended = after.history[after.history.length - 1]
          expect(summary, where).toBe(true)
          expect(appended.role, where).toBe('user')
          expect(appended.metadata, where).toEqual({ timestamp: DEFAULT_REPLAY_NOW, type: 'context_summary', _seq: before.nextSeq })
          expect(after.nextSeq, where).toBe(before.nextSeq + 1)
          expected.push(appended)
        }
        nextSeq = after.nextSeq
        break
      }
      default:
        expect(after.history, where).toBe(before.history)
        expect(after.nextSeq, where).toBe(before.nextSeq)
    }
    // Byte-identical, key order included (JSON keeps insertion order).
    expect(JSON.stringify(after.history), where).toBe(JSON.stringify(expected))
    expect(after.nextSeq, where).toBe(nextSeq)
    if (!summary) after.history.forEach((message, index) => expect(seqOfStored(message), where).toBe(index))
  }
}

describe('stored history', () => {
  it('equals what was added, stamped, and is never changed by requests (progressive)', () => {
    runProperty('history: progressive', fc.property(scenarioArb({ strategies: ['progressive'] }, { factory: 'changing', resets: true }), checkHistory), numRuns)
  })

  it('gains only one appended summary per successful swap (summary strategy)', () => {
    runProperty('history: summary', fc.property(scenarioArb({ strategies: ['summary'] }, { summaries: true, resets: true }), checkHistory), numRuns)
  })
})
