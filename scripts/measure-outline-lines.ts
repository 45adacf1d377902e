// Whether an outline of a long tool result (its declaration lines, the form a repository map or a
// ctags index keeps) would hold the needed facts a configuration loses (docs/evaluation.md, "Where
// Claude Code's lost facts are"): each lost fact (toRecallFigures, src/core/economics/recall.ts,
// read after the replay, never by a policy) whose latest source outside the last two messages is a
// tool result, and whether a line of that result holding the fact is kept by each outline:
//   decl        a line (after Claude Code's `   12→` line-number prefix) that starts with a
//               declaration keyword of the languages in the sessions (def/defp/defmodule/…, function,
//               class, interface, type, enum, struct, impl, fn, func, module, namespace, import,
//               export, from, use, alias, require, package, const/let/var, an @attribute)
//   decl-top    the same, indented by at most two spaces (top-level declarations only)
//   decl-head   decl, or a Markdown heading or bold list item (plans and reports)
//   quoted      a line holding a quoted string of 3+ characters
// and how many characters of those results each outline keeps (summed once per lost fact, as the
// facts are counted), per session and in total; beside it, how many of the facts a head of the same
// result as long as that outline would hold (the contract's truncation, lengthened).
//
//   npx tsx scripts/measure-outline-lines.ts [--budget N] INPUT... [KEY=JSON ...]
//   e.g. npx tsx scripts/measure-outline-lines.ts ../shared/sessions/claude-code ../shared/sessions/claude-code-2
// Sessions whose name holds "acompact" (the infeasible compaction transcript) are left out, as in the goals.
import { toRecallFigures, toValueStrings } from '../src/core/economics/recall.js'
import type { Message } from '../src/core/messages/message.js'

const { readInput, prepareSessions, runSession, expandInputs } = await import('../src/shell/cli/evaluate.js')
const { loadPriceTable, loadWindowTable } = await import('../src/shell/economics-data.js')
const { presets } = await import('../src/core/presets.js')

const args = process.argv.slice(2)
const budgetAt = args.indexOf('--budget')
const budget = budgetAt < 0 ? 60000 : Number(args.splice(budgetAt, 2)[1])
const settings: Array<[string, unknown]> = args.filter((a) => a.includes('=')).map((pair) => [pair.slice(0, pair.indexOf('=')), JSON.parse(pair.slice(pair.indexOf('=') + 1))])
const inputs = args.filter((a) => !a.includes('='))
const windows = loadWindowTable()
const options = { format: 'auto' as const, budget: { kind: 'budget' as const, tokens: budget }, summarizer: 'extractive' as const, usage: 'simulated' as const, model: null, prices: loadPriceTable(), windows }

const textOf = (m: Message): string => `${toValueStrings(m.content).join('\n')}\n${'tool_calls' in m && Array.isArray(m.tool_calls) ? m.tool_calls.map((c) => JSON.stringify(c)).join('\n') : ''}`
const body = (line: string): string => line.replace(/^\s*\d+(→|\t)/, '')
const declaration = /^\s*(export\s+)?(default\s+)?(declare\s+)?(abstract\s+)?(pub(\(\w+\))?\s+)?(async\s+)?(def\w*|function\*?|class|interface|type|enum|struct|impl|trait|fn|func|module|namespace|import|export|from|use|alias|require|package|const|let|var|@\w+)\b/
const outlines: Record<string, (line: string) => boolean> = {
  decl: (line) => declaration.test(body(line)),
  'decl-top': (line) => declaration.test(body(line)) && /^\s{0,2}\S/.test(body(line)),
  'decl-head': (line) => declaration.test(body(line)) || /^\s*(#{1,6}\s|[-*]\s+\*\*)/.test(body(line)),
  quoted: (line) => /["'`][^"'`\n]{3,}["'`]/.test(body(line)),
}

type Tally = { facts: number; chars: number; kept: Record<string, { facts: number; chars: number }>; head: Record<string, number> }
const tallies = new Map<string, Tally>()
const tallyOf = (name: string): Tally => {
  const found = tallies.get(name)
  if (found !== undefined) return found
  const fresh: Tally = { facts: 0, chars: 0, kept: Object.fromEntries(Object.keys(outlines).map((k) => [k, { facts: 0, chars: 0 }])), head: Object.fromEntries(Object.keys(outlines).map((k) => [k, 0])) }
  tallies.set(name, fresh)
  return fresh
}
const historyBefore = (ops: readonly { op: string; message?: Message; messages?: readonly Message[] }[], end: number): Message[] => {
  let history: Message[] = []
  for (const op of ops.slice(0, end)) {
    if (op.op === 'add_message' && op.message !== undefined) history.push(op.message)
    else if (op.op === 'set_messages' && op.messages !== undefined) history = [...op.messages]
    else if (op.op === 'clear') history = []
  }
  return history
}
for (const path of expandInputs(inputs)) {
  for (const session of prepareSessions(path, readInput(path, 'auto', { model: null, windows }), { preset: presets.recommended, file: null, settings }, options)) {
    if (session.name.includes('acompact')) continue
    const result = runSession(session, options)
    const recall = toRecallFigures(session.original, result.lines.map((l) => l.view))
    for (const request of recall.requests) {
      if (request.lost.length === 0) continue
      const nonSystem = historyBefore(session.original.ops, request.op_index).filter((m) => m.role !== 'system')
      const eligible = nonSystem.slice(0, Math.max(0, nonSystem.length - 2))
      for (const fact of request.lost) {
        let at = eligible.length - 1
        while (at >= 0 && !textOf(eligible[at]).includes(fact)) at -= 1
        if (at < 0 || eligible[at].role !== 'tool') continue
        const lines = toValueStrings(eligible[at].content).join('\n').split('\n')
        for (const tally of [tallyOf(session.name), tallyOf('total')]) {
          tally.facts += 1
          tally.chars += lines.reduce((sum, line) => sum + line.length + 1, 0)
          for (const [name, keeps] of Object.entries(outlines)) {
            const kept = lines.filter(keeps)
            const chars = kept.reduce((sum, line) => sum + line.length + 1, 0)
            if (kept.some((line) => line.includes(fact))) tally.kept[name].facts += 1
            tally.kept[name].chars += chars
            // the head of the same result with as many characters: does it hold the fact whole?
            const text = lines.join('\n')
            const start = text.indexOf(fact)
            if (start >= 0 && start + fact.length <= chars) tally.head[name] += 1
          }
        }
      }
    }
  }
}
const pct = (a: number, b: number): string => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)} %`)
console.log(`| session | lost facts in tool results | ${Object.keys(outlines).map((k) => `${k}: facts / characters (a head as long)`).join(' | ')} |`)
console.log(`|---|---:|${Object.keys(outlines).map(() => '---:').join('|')}|`)
for (const [name, t] of tallies) {
  console.log(`| ${name} | ${t.facts} | ${Object.entries(t.kept).map(([name, k]) => `${k.facts} (${pct(k.facts, t.facts)}) / ${pct(k.chars, t.chars)} (${t.head[name]})`).join(' | ')} |`)
}
