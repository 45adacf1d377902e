// Where the needed facts a configuration loses on tau-bench were (docs/evaluation.md, "A working
// set of handles (not taken)"): each lost fact of each request (src/core/economics/recall.ts, the
// measure, read here after the replay, never by a policy) attributed to the latest history message
// holding it outside the last two, by role (`call`: an assistant message with tool calls), by how
// many messages back it is, and by whether the user or the assistant had named the fact anywhere
// before the request (a policy that predicts from uses can see only those).
//
//   npx tsx scripts/measure-lost-facts.ts [KEY=JSON ...]    (over `recommended`, --budget 4500, gpt-4o, extractive)
import { existsSync } from 'node:fs'
import { toRecallFigures, toValueStrings } from '../src/core/economics/recall.js'
import type { Message } from '../src/core/messages/message.js'

const { readInput, prepareSessions, runSession, expandInputs } = await import('../src/shell/cli/evaluate.js')
const { loadPriceTable, loadWindowTable } = await import('../src/shell/economics-data.js')
const { presets } = await import('../src/core/presets.js')

// The shared sessions beside the clone, else the repository's copies of them (the same files, gzipped).
const root = existsSync('../shared/sessions') ? '../shared/sessions' : 'fixtures/sessions'
const windows = loadWindowTable()
const settings: Array<[string, unknown]> = process.argv.slice(2).map((pair) => {
  const at = pair.indexOf('=')
  return [pair.slice(0, at), JSON.parse(pair.slice(at + 1))]
})
const options = { format: 'auto' as const, budget: { kind: 'budget' as const, tokens: 4500 }, summarizer: 'extractive' as const, usage: 'simulated' as const, model: 'gpt-4o', prices: loadPriceTable(), windows }
const loaded = expandInputs([`${root}/openai-chat`]).map((path) => ({ path, loaded: readInput(path, 'auto', { model: 'gpt-4o', windows }) }))
const sessions = loaded.flatMap(({ path, loaded: input }) => prepareSessions(path, input, { preset: presets.recommended, file: null, settings }, options))

const tally = new Map<string, number>()
const count = (key: string): void => {
  tally.set(key, (tally.get(key) ?? 0) + 1)
}
const textOf = (message: Message): string => {
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map((call) => JSON.stringify(call)).join('\n') : ''
  return `${toValueStrings(message.content).join('\n')}\n${calls}`
}
const band = (back: number): string => (back <= 4 ? '3-4' : back <= 8 ? '5-8' : back <= 16 ? '9-16' : '17+')

for (const session of sessions) {
  const result = runSession(session, options)
  const recall = toRecallFigures(session.original, result.lines.map((line) => line.view))
  for (const request of recall.requests) {
    if (request.lost.length === 0) continue
    const history = session.original.ops.slice(0, request.op_index).flatMap((op) => (op.op === 'add_message' && op.message.role !== 'system' ? [op.message] : []))
    const eligible = history.slice(0, Math.max(0, history.length - 2))
    for (const fact of request.lost) {
      let source = eligible.length - 1
      while (source >= 0 && !textOf(eligible[source]).includes(fact)) source -= 1
      if (source < 0) {
        count('no source')
        continue
      }
      const message = eligible[source]
      count(`role ${message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0 ? 'call' : message.role}`)
      count(`messages back ${band(history.length - source)}`)
      count(`named before by user or assistant ${history.some((earlier) => earlier.role !== 'tool' && textOf(earlier).includes(fact))}`)
    }
  }
}
console.log([...tally].sort().map(([key, value]) => `${key}: ${value}`).join('\n'))
