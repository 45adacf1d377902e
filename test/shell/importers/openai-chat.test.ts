/**
 * Tests of the OpenAI chat trajectories importer on the tau-bench airline file (compared with the
 * conformance recordings made from items 0..39) and on small inline files.
 */
import { readFixture } from '../../support/fixtures.js'
import { describe, expect, test } from 'vitest'
import type { Message } from '../../../src/core/messages/message.js'
import { DEFAULT_REPLAY_NOW } from '../../../src/core/replay/recording.js'
import type { Recording } from '../../../src/core/replay/recording.js'
import { importOpenAiChatTrajectories, toSessionName } from '../../../src/shell/importers/openai-chat.js'
import { RecordingFormatError, parseRecordingJsonl } from '../../../src/shell/recording-file.js'
import { historiesAtRequests, recordingPairingProblems } from './pairing.js'


const tauText = readFixture('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json')
const tauItems = JSON.parse(tauText) as Array<{ task_id: number; trial: number; traj: Message[] }>

const opNames = (recording: Recording): string[] => recording.ops.map((op) => op.op)

/** The conformance writer stamps timestamps and turns `content: null` into `""`; undo both. */
const withoutConformanceAdditions = (message: Message): Message => {
  const { metadata: _metadata, ...rest } = message
  return rest
}
const withoutNullContent = (message: Message): Message =>
  message.content === null ? { ...message, content: '' } : message

describe('importOpenAiChatTrajectories on the tau-bench file', () => {
  const recordings = importOpenAiChatTrajectories(tauText, 'tau.json')

  test('one recording per item, named <task_id>-t<trial>, in file order', () => {
    expect(recordings).toHaveLength(tauItems.length)
    expect(recordings.map((recording) => recording.session)).toEqual(tauItems.map((item) => `${item.task_id}-t${item.trial}`))
    expect(recordings[0].session).toBe('0-t0')
    for (const recording of recordings) {
      expect(recording.config).toEqual({})
      expect(recording.now).toBe(DEFAULT_REPLAY_NOW)
    }
  })

  test('messages are kept exactly as they are (null content, key order), a request before each assistant and at the end', () => {
    recordings.forEach((recording, index) => {
      const traj = tauItems[index].traj
      expect(historiesAtRequests(recording).final).toEqual(traj)
      const expected = traj.flatMap((message) =>
        message.role === 'assistant' ? ['get_messages_for_request', 'add_message'] : ['add_message'],
      )
      expect(opNames(recording)).toEqual([...expected, 'get_messages_for_request'])
      expect(opNames(recording)).not.toContain('llm_response')
    })
    const firstCall = historiesAtRequests(recordings[0]).final.find((message) => Array.isArray(message.tool_calls))
    expect(firstCall?.content).toBeNull()
    expect(Object.keys(firstCall ?? {})).toEqual(['content', 'role', 'tool_calls'])
  })

  test('every history satisfies R1-R3', () => {
    for (const recording of recordings) expect(recordingPairingProblems(recording)).toEqual([])
  })

  test('items 0..39 match the conformance recordings tau-NNN-t0 apart from budgets, timestamps and null content', () => {
    for (let index = 0; index < 40; index += 1) {
      const name = `tau-${String(index).padStart(3, '0')}-t0`
      const conformance = parseRecordingJsonl(readFixture(`conformance/sessions/${name}.recording.jsonl`), name)
      const ours = recordings[index]
      expect(opNames(ours)).toEqual(opNames(conformance))
      expect(historiesAtRequests(ours).final.map(withoutNullContent)).toEqual(
        historiesAtRequests(conformance).final.map(withoutConformanceAdditions),
      )
    }
  })
})

describe('importOpenAiChatTrajectories on inline files', () => {
  test('a system, user, tool loop and final answer', () => {
    const traj = [
      { role: 'system', content: 'policy' },
      { role: 'user', content: 'book it' },
      { content: null, role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'book', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', name: 'book', content: 'ok' },
      { role: 'assistant', content: 'booked' },
    ]
    const [recording] = importOpenAiChatTrajectories(JSON.stringify([{ task_id: 'a', reward: 1, info: {}, traj, trial: 2 }]), 'x.json')
    expect(recording).toEqual({
      config: {},
      now: DEFAULT_REPLAY_NOW,
      session: 'a-t2',
      ops: [
        { op: 'add_message', message: traj[0] },
        { op: 'add_message', message: traj[1] },
        { op: 'get_messages_for_request' },
        { op: 'add_message', message: traj[2] },
        { op: 'add_message', message: traj[3] },
        { op: 'get_messages_for_request' },
        { op: 'add_message', message: traj[4] },
        { op: 'get_messages_for_request' },
      ],
    })
  })

  test('a missing trial names the session t0; an empty array gives no recordings', () => {
    expect(toSessionName({ task_id: 5, traj: [] })).toBe('5-t0')
    expect(importOpenAiChatTrajectories('[]', 'x.json')).toEqual([])
  })

  describe('errors', () => {
    const thrown = (text: string): RecordingFormatError => {
      try {
        importOpenAiChatTrajectories(text, 'tau.json')
      } catch (error) {
        expect(error).toBeInstanceOf(RecordingFormatError)
        return error as RecordingFormatError
      }
      throw new Error('expected a RecordingFormatError')
    }

    test.each([
      ['', 'tau.json: empty file: expected a JSON array of trajectories'],
      ['{"task_id":1}', 'tau.json: expected a JSON array of trajectories ({task_id, trial, traj}), got {"task_id":1}'],
      ['[{"task_id":1,"traj":[]},3]', 'tau.json: item [1]: expected an object with "task_id" and "traj", got 3'],
      ['[{"task_id":1}]', 'tau.json: item [0]: needs an array "traj", got nothing'],
      ['[{"task_id":1,"traj":[{"role":"user"},"hi"]}]', 'tau.json: item [0]: traj[1]: a message must be an object, got "hi"'],
      ['[{"traj":[]}]', 'tau.json: item [0]: needs a string or number "task_id", got nothing'],
      ['[{"task_id":1,"traj":[],"trial":null}]', 'tau.json: item [0]: "trial" must be a string or a number, got null'],
    ])('%s', (text, message) => {
      expect(thrown(text).message).toBe(message)
    })

    test('text that is not JSON', () => {
      expect(thrown('[\n{"task_id": 1,,}]').message).toMatch(/^tau\.json: not valid JSON: /)
    })
  })
})
