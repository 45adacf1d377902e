// Whether keeping the lines of a long tool result that hold an identifier other messages name would
// keep the facts `recommended` loses (docs/evaluation.md, "Where Claude Code's lost facts are"): for
// each lost fact whose latest source (outside the last two messages) is a tool result, whether the
// fact's line (or a line within 3 of it) holds an identifier ([A-Za-z_][A-Za-z0-9_]{3,}) that a
// message after the source names (laterOwn: user and assistant messages; laterAll: any message;
// ownAny: user and assistant messages before or after), and how many characters of those results
// such lines cover ("sel chars kept" against "sel total chars", summed per lost fact).
//
//   npx tsx scripts/measure-identifier-lines.ts     (Claude Code sessions, --budget 60000, recommended)
import { existsSync } from 'node:fs'
import { toRecallFigures, toValueStrings } from '../src/core/economics/recall.js'
const root = existsSync('../shared/sessions') ? '../shared/sessions' : '/work/shared/sessions'
const { readInput, prepareSessions, runSession, expandInputs } = await import('../src/shell/cli/evaluate.js')
const { loadPriceTable, loadWindowTable } = await import('../src/shell/economics-data.js')
const { presets } = await import('../src/core/presets.js')
const windows = loadWindowTable()
const options = { format: 'auto' as const, budget: { kind: 'budget' as const, tokens: 60000 }, summarizer: 'extractive' as const, usage: 'simulated' as const, model: null, prices: loadPriceTable(), windows }
const textOf = (m: any): string => `${toValueStrings(m.content).join('\n')}\n${Array.isArray(m.tool_calls) ? m.tool_calls.map((c: any) => JSON.stringify(c)).join('\n') : ''}`
const ids = (s: string) => new Set(s.match(/[A-Za-z_][A-Za-z0-9_]{3,}/g) ?? [])
const tally = new Map<string, number>(); const count = (k: string, n = 1) => tally.set(k, (tally.get(k) ?? 0) + n)
for (const path of expandInputs([`${root}/claude-code`, `${root}/claude-code-2`])) {
  for (const session of prepareSessions(path, readInput(path, 'auto', { model: null, windows }), { preset: presets.recommended, file: null, settings: [] }, options)) {
    if (session.name.includes('acompact')) continue
    const result = runSession(session, options)
    const recall = toRecallFigures(session.original, result.lines.map((l: any) => l.view))
    for (const request of recall.requests) {
      if (request.lost.length === 0) continue
      let history: any[] = []
      for (const op of session.original.ops.slice(0, request.op_index)) { if (op.op === 'add_message') history.push(op.message); else if (op.op === 'set_messages') history = [...op.messages]; else if (op.op === 'clear') history = [] }
      const nonSys = history.filter((m) => m.role !== 'system')
      const eligible = nonSys.slice(0, Math.max(0, nonSys.length - 2))
      for (const fact of request.lost) {
        let s = eligible.length - 1
        while (s >= 0 && !textOf(eligible[s]).includes(fact)) s -= 1
        if (s < 0 || eligible[s].role !== 'tool') continue
        const src = toValueStrings(eligible[s].content).join('\n')
        // identifiers used by messages after the source (non-tool only / any), up to request (excluding last two? include all history before request)
        const laterAll = new Set<string>(); const laterOwn = new Set<string>()
        for (const m of nonSys.slice(s + 1)) { const t = ids(textOf(m)); for (const x of t) laterAll.add(x); if (m.role !== 'tool') for (const x of t) laterOwn.add(x) }
        const earlierOwn = new Set<string>(); for (const m of nonSys.slice(0, s)) if (m.role !== 'tool') for (const x of ids(textOf(m))) earlierOwn.add(x)
        const lines = src.split('\n')
        const lineOf = (() => { let at = src.indexOf(fact); let acc = 0; for (let i = 0; i < lines.length; i++) { acc += lines[i].length + 1; if (acc > at) return i } return -1 })()
        for (const [name, set] of [['laterOwn', laterOwn], ['laterAll', laterAll], ['ownAny', new Set([...laterOwn, ...earlierOwn])]] as const) {
          const ref = (i: number) => [...ids(lines[i])].some((x) => set.has(x))
          const near = (i: number, w: number) => { for (let j = Math.max(0, i - w); j <= Math.min(lines.length - 1, i + w); j++) if (ref(j)) return true; return false }
          count(`${name} fact line referenced ${ref(lineOf)}`)
          count(`${name} within 3 lines ${near(lineOf, 3)}`)
          let keptChars = 0, keptChars3 = 0
          for (let i = 0; i < lines.length; i++) { if (ref(i)) keptChars += lines[i].length + 1; if (near(i, 3)) keptChars3 += lines[i].length + 1 }
          count(`${name} sel chars kept`, keptChars); count(`${name} sel3 chars kept`, keptChars3)
        }
        count('sel total chars', src.length); count('facts', 1)
      }
    }
  }
}
console.log([...tally].sort().map(([k, v]) => `${k}: ${v}`).join('\n'))
