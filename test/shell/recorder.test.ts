/** Tests of the session recorder: op capture, copies, the Recording and its JSON Lines text. */
import { describe, expect, it } from 'vitest'
import { DEFAULT_REPLAY_NOW } from '../../src/core/replay/recording.js'
import { makeRecorder } from '../../src/shell/recorder.js'

describe('makeRecorder', () => {
  it('collects ops in order as deep copies and builds the recording', () => {
    const config = { max_tokens: 1000 }
    const recorder = makeRecorder(config)
    const message = { role: 'user', content: [{ type: 'text', text: 'hi' }] }
    recorder.record({ op: 'add_message', message })
    recorder.record({ op: 'get_messages_for_request', token_budget: 500 })
    recorder.record({ op: 'summary_result', text: 'summary' })
    message.content[0].text = 'mutated'
    config.max_tokens = 1
    expect(recorder.toRecording()).toEqual({
      config: { max_tokens: 1000 },
      now: DEFAULT_REPLAY_NOW,
      ops: [
        { op: 'add_message', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } },
        { op: 'get_messages_for_request', token_budget: 500 },
        { op: 'summary_result', text: 'summary' },
      ],
    })
    expect(recorder.ops).toHaveLength(3)
  })

  it('carries the now and session options and writes docs/recording-format.md JSON Lines', () => {
    const recorder = makeRecorder({}, { now: '2026-03-01T12:00:00.000+00:00', session: 'task-1-t0' })
    recorder.record({ op: 'clear' })
    expect(recorder.toRecording()).toEqual({ config: {}, now: '2026-03-01T12:00:00.000+00:00', ops: [{ op: 'clear' }], session: 'task-1-t0' })
    expect(recorder.toJsonLines()).toBe(
      '{"type":"recording","version":1,"config":{},"now":"2026-03-01T12:00:00.000+00:00","session":"task-1-t0"}\n{"op":"clear"}\n',
    )
  })
})
