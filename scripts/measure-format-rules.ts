// Counts, per session and format, the views of `replay --view-format F --json` output files that
// break a provider rule (findFormatViolations: A1-A9, S1-S6, O1-O4, R1-R4/C5) or hold input the
// provider refuses (findHistoryRefusals). The same checker on the views of two builds gives the
// before/after of a change. Usage: tsx scripts/measure-format-rules.ts LABEL FILE.jsonl...
// (each FILE named <session>.<format>.jsonl).
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { findFormatViolations } from '../src/core/formats/dispatch.js'
import { findHistoryRefusals } from '../src/core/formats/input-rules.js'
import type { MessageFormat } from '../src/core/formats/carrier.js'

const [label, ...files] = process.argv.slice(2)
const totals = new Map<string, { views: number; failing: number; rules: Map<string, number> }>()
for (const file of files) {
  const [session, format] = basename(file, '.jsonl').split('.') as [string, MessageFormat]
  let views = 0
  let failing = 0
  const rules = new Map<string, number>()
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue
    const parsed = JSON.parse(line) as { view?: unknown }
    if (parsed.view === undefined || parsed.view === null) continue
    views += 1
    // repeated call ids the input itself repeats (A4/S4/O3/R4) are the input's, not the view's
    const found = [...findFormatViolations(format, parsed.view).filter((p) => !/^(A4|S4|O3|R4) /.test(p)), ...findHistoryRefusals(format, parsed.view).map((r) => `H ${r.detail}`)]
    if (found.length > 0) failing += 1
    for (const code of new Set(found.map((p) => p.split(' ')[0]))) rules.set(code, (rules.get(code) ?? 0) + 1)
  }
  console.log(`${label}\t${session}\t${format}\tviews ${views}\tfailing ${failing}\t${[...rules].map(([k, v]) => `${k}:${v}`).join(' ')}`)
  const total = totals.get(format) ?? { views: 0, failing: 0, rules: new Map() }
  total.views += views
  total.failing += failing
  totals.set(format, total)
}
for (const [format, total] of totals) console.log(`${label}\tTOTAL\t${format}\tviews ${total.views}\tfailing ${total.failing}`)
