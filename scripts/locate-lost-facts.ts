// Where the needed facts a configuration loses are (docs/evaluation.md, "Where Claude Code's lost
// facts are"): each lost fact of each request (toRecallFigures, src/core/economics/recall.ts, read
// after the replay, never by a policy) attributed to the latest history message holding it outside
// the last two messages, tallied by
//   kind    the source: a tool result by its tool's name, assistant text, an assistant tool call
//           (by tool name), a user message;
//   state   what the view sent at that request holds of the source: removed, truncated (a shortened
//           tool result), or kept (the message is in the view but not the fact);
//   back    how many messages before the request the source is;
//   size    the source's text in characters, and for a tool result where the fact starts in it
//           and whether it lies in the result's last 1,000 characters;
//   named   whether any user or assistant message before the request names the fact (what a
//           policy that predicts from uses can see);
//   answer  where the answer uses it: its text, or a tool call's arguments (by tool name).
//
//   npx tsx scripts/locate-lost-facts.ts [--budget N] [--model M] [--preset P] INPUT... [KEY=JSON ...]
//   e.g. npx tsx scripts/locate-lost-facts.ts ../shared/sessions/claude-code ../shared/sessions/claude-code-2
// Sessions whose name holds "acompact" (the infeasible compaction transcript) are left out, as in the goals.
import { toRecallFigures, toValueStrings } from '../src/core/economics/recall.js'
import type { Message } from '../src/core/messages/message.js'

const { readInput, prepareSessions, runSession, expandInputs } = await import('../src/shell/cli/evaluate.js')
const { loadPriceTable, loadWindowTable } = await import('../src/shell/economics-data.js')
const { presets, isPresetName } = await import('../src/core/presets.js')

const args = process.argv.slice(2)
const option = (name: string, fallback: string | null): string | null => {
  const at = args.indexOf(name)
  if (at < 0) return fallback
  const [value] = args.splice(at, 2).slice(1)
  return value
}
const budget = Number(option('--budget', '60000'))
const model = option('--model', null)
const presetName = option('--preset', 'recommended') as string
if (!isPresetName(presetName)) throw new Error(`--preset ${presetName}: not a preset name`)
const settings: Array<[string, unknown]> = args.filter((arg) => arg.includes('=')).map((pair) => [pair.slice(0, pair.indexOf('=')), JSON.parse(pair.slice(pair.indexOf('=') + 1))])
const inputs = args.filter((arg) => !arg.includes('='))
const windows = loadWindowTable()
const options = { format: 'auto' as const, budget: { kind: 'budget' as const, tokens: budget }, summarizer: 'extractive' as const, usage: 'simulated' as const, model, prices: loadPriceTable(), windows }

const tally = new Map<string, number>()
const count = (key: string): void => {
  tally.set(key, (tally.get(key) ?? 0) + 1)
}
const textOf = (message: Message): string => toValueStrings(message.content).join('\n')
const callsOf = (message: Message): ReadonlyArray<{ readonly name: string; readonly args: string }> =>
  Array.isArray(message.tool_calls) ? message.tool_calls.map((call) => ({ name: String(call.function?.name), args: toValueStrings(JSON.parse(call.function?.arguments ?? '{}')).join('\n') })) : []
const holds = (message: Message, fact: string): boolean => textOf(message).includes(fact) || callsOf(message).some((call) => call.args.includes(fact))
const band = (value: number, edges: ReadonlyArray<number>, unit = ''): string => {
  const at = edges.findIndex((edge) => value <= edge)
  return at < 0 ? `> ${edges[edges.length - 1]}${unit}` : `<= ${edges[at]}${unit}`
}

const attribute = (fact: string, history: ReadonlyArray<Message>, view: ReadonlyArray<Message>, answer: ReadonlyArray<Message>, names: ReadonlyMap<string, string>): void => {
  const eligible = history.slice(0, Math.max(0, history.length - 2))
  let source = eligible.length - 1
  while (source >= 0 && !holds(eligible[source], fact)) source -= 1
  if (source < 0) return count('kind: no source')
  const message = eligible[source]
  const text = textOf(message)
  const inCall = !text.includes(fact)
  count(`kind: ${message.role === 'tool' ? `tool result ${names.get(String(message.tool_call_id)) ?? '?'}` : message.role === 'assistant' ? (inCall ? `assistant call ${callsOf(message).map((call) => call.name).join('+')}` : 'assistant text') : message.role}`)
  const seq = (message.metadata as { _seq?: number } | undefined)?._seq
  const shown = view.find((item) => (message.role === 'tool' ? item.tool_call_id === message.tool_call_id : (item.metadata as { _seq?: number } | undefined)?._seq === seq && seq !== undefined))
  count(`state: ${shown === undefined ? 'removed' : shown.content === message.content ? 'kept (fact not in it)' : 'truncated'}`)
  count(`back (messages): ${band(history.length - source, [4, 8, 16, 32, 64])}`)
  count(`size (characters): ${band(text.length, [250, 1000, 4000, 16000])}`)
  if (message.role === 'tool') {
    count(`offset in the tool result (characters): ${band(text.indexOf(fact), [250, 1000, 2000, 4000, 8000, 16000])}`)
    count(`in the tool result's last 1,000 characters: ${text.length - text.lastIndexOf(fact) <= 1000}`)
  }
  count(`named before by user or assistant: ${history.some((earlier) => earlier.role !== 'tool' && earlier !== message && holds(earlier, fact))}`)
  const uses = new Set(answer.flatMap((item) => [...(textOf(item).includes(fact) ? ['text'] : []), ...callsOf(item).filter((call) => call.args.includes(fact)).map((call) => `call ${call.name}`)]))
  count(`answer: ${[...uses].sort().join(' + ') || '?'}`)
}

for (const path of expandInputs(inputs)) {
  for (const session of prepareSessions(path, readInput(path, 'auto', { model, windows }), { preset: presets[presetName], file: null, settings }, options)) {
    if (session.name.includes('acompact')) continue
    const views = runSession(session, options).lines.map((line) => line.view)
    const recall = toRecallFigures(session.original, views)
    console.log(`# ${session.name}: ${recall.recalled_facts} of ${recall.needed_facts}`)
    let history: Message[] = []
    let request = -1
    const names = new Map<string, string>()
    session.original.ops.forEach((op, index) => {
      if (op.op === 'add_message') history.push(op.message)
      else if (op.op === 'set_messages') history = [...op.messages]
      else if (op.op === 'clear') history = []
      if (op.op === 'add_message' && Array.isArray(op.message.tool_calls)) for (const call of op.message.tool_calls) names.set(String(call.id), String(call.function?.name))
      if (op.op !== 'get_messages_for_request') return
      request += 1
      const lost = recall.requests[request].lost
      if (lost.length === 0) return
      const answer: Message[] = []
      for (const next of session.original.ops.slice(index + 1)) {
        if (next.op === 'get_messages_for_request') break
        if (next.op === 'add_message' && next.message.role === 'assistant') answer.push(next.message)
      }
      const nonSystem = history.filter((message) => message.role !== 'system')
      for (const fact of lost) attribute(fact, nonSystem, views[request] ?? [], answer, names)
    })
  }
}
console.log([...tally].sort().map(([key, value]) => `${key}: ${value}`).join('\n'))
