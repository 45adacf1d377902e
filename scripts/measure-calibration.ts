// The goals of the calibrated meter (docs/evaluation.md, "The calibrated meter"), measured with the
// provider model (--usage simulated, gpt-tokenizer count) on every session given, per session and
// in total: boundaries, views over the request budget as billed, and the prediction error of
// used_tokens / model_tokens / the reference estimate against the provider's reading of each
// request (meaningful in a run that never compacts: every view is then what the agent sent).
// A session whose fitted overhead alone is at or above the budget is infeasible: reported, and
// left out of the totals.
// Usage: npx tsx scripts/measure-calibration.ts <budget|never> <preset[+json]|json-config> <files or folders>...
//   e.g. npx tsx scripts/measure-calibration.ts 60000 'recommended' fixtures/sessions/claude-code
import { readInput, prepareSessions, runSession, expandInputs } from '../src/shell/cli/evaluate.js'
import { loadPriceTable, loadWindowTable } from '../src/shell/economics-data.js'
import { presets } from '../src/core/presets.js'
const [budgetArg, configArg, ...paths] = process.argv.slice(2)
const budget = budgetArg === 'never' ? 100_000_000 : Number(budgetArg)
const preset = configArg.startsWith('{') ? JSON.parse(configArg) : { ...(presets as any)[configArg.split('+')[0]], ...(configArg.includes('+') ? JSON.parse(configArg.split('+').slice(1).join('+')) : {}) }
const options = { format: 'auto' as const, budget: { kind: 'budget' as const, tokens: budget }, summarizer: 'extractive' as const, usage: 'simulated' as const, model: null, prices: loadPriceTable(), windows: loadWindowTable() }
const q = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); if (s.length === 0) return NaN; return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))] }
let tot = { req: 0, b: 0, over: 0 }
const allU: number[] = [], allM: number[] = [], allE: number[] = []
for (const path of expandInputs(paths)) {
  const loaded = readInput(path, 'auto')
  for (const session of prepareSessions(path, loaded, { preset, file: null, settings: [] }, options as any)) {
    const result = runSession(session, options as any)
    let boundaries = 0, over = 0
    const eU: number[] = [], eM: number[] = [], eE: number[] = []
    result.lines.forEach((line, i) => {
      if (line.events.some((e) => e.name === 'context:compaction')) boundaries++
      const ec = result.economics[i]
      if (ec && ec.split.input_tokens > budget) over++
      const st = line.token_meter_stats as any
      if (ec && ec.recorded_input !== null && st) {
        eU.push(Math.abs(st.used_tokens - ec.recorded_input) / ec.recorded_input)
        if (st.model_tokens !== undefined) eM.push(Math.abs(st.model_tokens - ec.recorded_input) / ec.recorded_input)
        eE.push(Math.abs(st.estimated_tokens - ec.recorded_input) / ec.recorded_input)
      }
    })
    const f = result.providerFit!
    const infeasible = f.source !== 'none' && f.overhead >= budget
    console.log([session.name, `req ${result.lines.length}`, `boundaries ${boundaries}`, `over-budget(billed>${budget}) ${over}`, infeasible ? 'INFEASIBLE' : '', `used med ${(100*q(eU,0.5)).toFixed(2)}% p95 ${(100*q(eU,0.95)).toFixed(2)}%`, eM.length ? `model med ${(100*q(eM,0.5)).toFixed(2)}% p95 ${(100*q(eM,0.95)).toFixed(2)}%` : '', `est med ${(100*q(eE,0.5)).toFixed(1)}%`, `fit ${f.scale.toFixed(3)}x+${Math.round(f.overhead)}`].join(' | '))
    if (!infeasible) { tot.req += result.lines.length; tot.b += boundaries; tot.over += over }
    allU.push(...eU); allM.push(...eM); allE.push(...eE)
  }
}
console.log(`TOTAL (feasible) req ${tot.req} boundaries ${tot.b} over ${tot.over} | used med ${(100*q(allU,0.5)).toFixed(2)}% p95 ${(100*q(allU,0.95)).toFixed(2)}% | model med ${(100*q(allM,0.5)).toFixed(2)}% p95 ${(100*q(allM,0.95)).toFixed(2)}% | est med ${(100*q(allE,0.5)).toFixed(1)}%`)
