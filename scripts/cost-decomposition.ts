// Where the input cost of a configuration goes on tau-bench at 4,500 (gpt-4o), request by request,
// under compare's provider and cache model (runSession, as `compare` replays it; docs/evaluation.md,
// "What separates an online policy from the oracle"). Per configuration, summed over requests:
//   uncached input, split into what the no-compaction replay also pays at that request (new
//   messages, 128-token steps) and the rest (`rebilled`: what rewrites re-bill, net); cached reads;
//   the billed view per request (mean, p10/p50/p90/max), its system part, the mandatory part the
//   bound assumes (system + the history's last two messages, scripts/retention-bound.ts); kept
//   history messages outside the system and the view's last two, split into `serving` (holding a
//   needed fact of that request, toRecallFigures) and idle by role.
// Configurations: `recommended` plus the keys of each --config; then the class-(a) oracle of
// scripts/retention-bound.ts (toOracleKeeps) at 85 %, and a contiguous oracle (it knows the same
// facts but keeps the whole recent window from the earliest message serving one) at 85 and 100 %.
//
//   npx tsx scripts/cost-decomposition.ts [--rows FILE] [--no-oracle] [--config 'label=k1=v1,k2=v2' ...]
//   npm run evaluation:decompose
//
// Values are parsed as JSON, else kept as strings; with no --config, the points of the section
// named above. --rows FILE writes one JSON line per (configuration, request).
import { existsSync, writeFileSync } from 'node:fs'
import { toViewMessageText } from '../src/core/economics/recall.js'
import { toBoundRequests, toOracleExclusions, toOracleKeeps, toOraclePlan } from './retention-bound.js'

const argv = process.argv.slice(2)
const valuesOf = (flag: string): string[] => argv.flatMap((arg, index) => (arg === flag && index + 1 < argv.length ? [argv[index + 1]] : []))
const rowsFile = valuesOf('--rows')[0] ?? null
const DEFAULT_CONFIGS = [
  'recommended=',
  'never=compact_threshold=100',
  'lr-c0.4-pr0.1-ptr0=protected_recent=0.1,protected_tool_results=0,target_basis=compactable,target_usage=0.4',
  'lr-c0.45-pr0.1-ptr0=protected_recent=0.1,protected_tool_results=0,target_basis=compactable,target_usage=0.45',
  'lr-c0.5-pr0.1-ptr0=protected_recent=0.1,protected_tool_results=0,target_basis=compactable,target_usage=0.5',
  'ct0.75-c0.3-pr0.1-ptr0=compact_threshold=0.75,protected_recent=0.1,protected_tool_results=0,target_basis=compactable,target_usage=0.3',
  'ct0.75-c0.5-pr0.1-ptr0=compact_threshold=0.75,protected_recent=0.1,protected_tool_results=0,target_basis=compactable,target_usage=0.5',
  'ct0.6-b0.4-pr0.1-ptr0=compact_threshold=0.6,protected_recent=0.1,protected_tool_results=0',
]
const parseValue = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
const configs = (valuesOf('--config').length > 0 ? valuesOf('--config') : DEFAULT_CONFIGS).map((spec) => {
  const [label, ...rest] = spec.split('=')
  const body = rest.join('=')
  const settings = body === '' ? [] : body.split(',').map((pair) => {
    const [key, value] = pair.split('=')
    return [key, parseValue(value)] as [string, unknown]
  })
  return { label, settings }
})

const { readInput, prepareSessions, runSession, expandInputs } = await import('../src/shell/cli/evaluate.js')
const { loadPriceTable, loadWindowTable } = await import('../src/shell/economics-data.js')
const { makeProviderCounter, loadTokenizer } = await import('../src/shell/estimators.js')
const { toSessionMetrics } = await import('../src/core/economics/metrics.js')
const { presets } = await import('../src/core/presets.js')

const root = existsSync('../shared/sessions') ? '../shared/sessions' : 'fixtures/sessions'
const prices = loadPriceTable()
const windows = loadWindowTable()
const countMessage = makeProviderCounter().count
const tokenize = loadTokenizer()
const countText = (text: string): number => tokenize(text)
const options = { format: 'auto' as const, budget: { kind: 'budget' as const, tokens: 4500 }, summarizer: 'extractive' as const, usage: 'simulated' as const, model: 'gpt-4o', prices, windows }

interface RequestRow { counted: number; lastTwoKept: number; idleByRole: Record<string, number>; session: string; request: number; view: number; system: number; mandatory: number; serving: number; uncached: number; cached: number; baseUncached: number; prefixBreak: boolean; history: number }
type Peer = (history: ReadonlyArray<never>, budget: unknown, request: number) => ReadonlyArray<never>

const loaded = expandInputs([`${root}/openai-chat`]).map((path) => ({ path, loaded: readInput(path, 'auto', { model: 'gpt-4o', windows }) }))
const peerSessions = loaded.flatMap(({ path, loaded: input }) => prepareSessions(path, input, { preset: null, file: null, settings: [['compaction_notice_token_reserve', 0]] }, options))

// per session: the bound's requests (mandatory tokens: system + last two messages; needed facts)
const boundRequests = new Map<string, ReturnType<typeof toBoundRequests>>()
const perRequest = (result: ReturnType<typeof runSession>, session: string): Array<Omit<RequestRow, 'baseUncached'>> =>
  result.lines.flatMap((line, request) => {
    const economics = result.economics[request]
    if (economics === null || economics === undefined) return []
    const view = (line as { view?: ReadonlyArray<{ role: string }> }).view ?? []
    const system = view.filter((message) => message.role === 'system' || message.role === 'developer').reduce((sum, message) => sum + countMessage(message as never), 0)
    const bound = boundRequests.get(session)?.[request]
    // the view's last two messages stand for the history's last two (every view keeps them; the
    // view's wire form differs from the history's, so they are matched by place, not by content)
    const lastTwo = new Set(view.slice(Math.max(0, view.length - 2)).map((message) => JSON.stringify(message)))
    // tokens of kept history messages (not system, not the last two) holding a fact this request needs
    const serving = view
      .filter((message) => message.role !== 'system' && message.role !== 'developer' && !lastTwo.has(JSON.stringify(message)))
      .filter((message) => (bound?.facts ?? []).some(({ fact }) => toViewMessageText(message as never).includes(fact)))
      .reduce((sum, message) => sum + countMessage(message as never), 0)
    const idleByRole: Record<string, number> = {}
    for (const message of view) {
      if (message.role === 'system' || message.role === 'developer' || lastTwo.has(JSON.stringify(message))) continue
      if ((bound?.facts ?? []).some(({ fact }) => toViewMessageText(message as never).includes(fact))) continue
      const calls = (message as { tool_calls?: unknown[] }).tool_calls
      const kind = message.role === 'assistant' && Array.isArray(calls) && calls.length > 0 ? 'assistant_call' : message.role
      idleByRole[kind] = (idleByRole[kind] ?? 0) + countMessage(message as never)
    }
    const counted = view.reduce((sum, message) => sum + countMessage(message as never), 0)
    const lastTwoKept = view.filter((message) => lastTwo.has(JSON.stringify(message))).reduce((sum, message) => sum + countMessage(message as never), 0)
    return [{ session, request, idleByRole, counted, lastTwoKept, view: economics.billed_view_tokens, system, mandatory: bound?.mandatoryTokens ?? 0, serving, uncached: economics.split.uncached_input_tokens, cached: economics.split.cache_read_tokens, prefixBreak: economics.prefix_break, history: result.historySizes[request] ?? 0 }]
  })

// the no-compaction replay: per request what every policy pays uncached (new messages, steps)
const base = new Map<string, number>()
for (const session of peerSessions) boundRequests.set(session.name, toBoundRequests(session.original, countMessage, countText))
for (const session of peerSessions) {
  const result = runSession(session, options, undefined, {}, ((history: ReadonlyArray<never>) => history) as never)
  for (const row of perRequest(result, session.name)) base.set(`${session.name}#${row.request}`, row.uncached)
}

const summarise = (label: string, rows: ReadonlyArray<Omit<RequestRow, 'baseUncached'>>, metrics: ReadonlyArray<{ relative_cost: number; cost_usd: number; recalled_facts: number; needed_facts: number; boundaries: number; prefix_breaks: number; overflows: number; invalid_views: number }>): Record<string, unknown> => {
  const sum = (pick: (row: Omit<RequestRow, 'baseUncached'>) => number): number => rows.reduce((total, row) => total + pick(row), 0)
  const views = rows.map((row) => row.view).sort((x, y) => x - y)
  const kept = rows.map((row) => row.view - row.system).sort((x, y) => x - y)
  const q = (sorted: ReadonlyArray<number>, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
  const uncached = sum((row) => row.uncached)
  const baseUncached = sum((row) => base.get(`${row.session}#${row.request}`) ?? 0)
  const broken = rows.filter((row) => row.prefixBreak)
  const m = (pick: (x: (typeof metrics)[number]) => number): number => metrics.reduce((total, x) => total + pick(x), 0)
  return {
    label,
    recall: +((100 * m((x) => x.recalled_facts)) / m((x) => x.needed_facts)).toFixed(1),
    relative: m((x) => x.relative_cost),
    usd: +m((x) => x.cost_usd).toFixed(4),
    requests: rows.length,
    uncached,
    uncached_also_without_compaction: baseUncached,
    rebilled: uncached - baseUncached,
    cached_reads: sum((row) => row.cached),
    cached_reads_relative: Math.round(0.1 * sum((row) => row.cached)),
    view_mean: Math.round(sum((row) => row.view) / rows.length),
    view_p10_p50_p90_max: [q(views, 0.1), q(views, 0.5), q(views, 0.9), views[views.length - 1]],
    system_mean: Math.round(sum((row) => row.system) / rows.length),
    beyond_system_mean: Math.round(sum((row) => row.view - row.system) / rows.length),
    beyond_system_p50_p90: [q(kept, 0.5), q(kept, 0.9)],
    counted_mean: Math.round(sum((row) => row.counted) / rows.length),
    last_two_in_view_mean: Math.round(sum((row) => row.lastTwoKept) / rows.length),
    mandatory_mean: Math.round(sum((row) => row.mandatory) / rows.length),
    beyond_mandatory_mean: Math.round(sum((row) => row.view - row.mandatory) / rows.length),
    serving_mean: Math.round(sum((row) => row.serving) / rows.length),
    idle_mean: Math.round(sum((row) => row.view - row.mandatory - row.serving) / rows.length),
    idle_by_role_mean: Object.fromEntries(['user', 'assistant', 'assistant_call', 'tool'].map((role) => [role, Math.round(sum((row) => row.idleByRole[role] ?? 0) / rows.length)])),
    history_mean: Math.round(sum((row) => row.history) / rows.length),
    boundaries: m((x) => x.boundaries),
    prefix_breaks: m((x) => x.prefix_breaks),
    breaks_rebilled_per_break: broken.length === 0 ? 0 : Math.round(broken.reduce((total, row) => total + row.uncached - (base.get(`${row.session}#${row.request}`) ?? 0), 0) / broken.length),
    overflows: m((x) => x.overflows),
    invalid: m((x) => x.invalid_views),
  }
}

const out: Array<Record<string, unknown>> = []
const allRows: Array<Record<string, unknown>> = []
for (const config of configs) {
  const sessions = loaded.flatMap(({ path, loaded: input }) => prepareSessions(path, input, { preset: presets.recommended, file: null, settings: config.settings as never }, options))
  const rows: Array<Omit<RequestRow, 'baseUncached'>> = []
  const metrics = sessions.map((session) => {
    const result = runSession(session, options)
    rows.push(...perRequest(result, session.name))
    return toSessionMetrics(result, session.original, session.limit, session.price)
  })
  out.push(summarise(config.label, rows, metrics))
  for (const row of rows) allRows.push({ config: config.label, ...row, baseUncached: base.get(`${row.session}#${row.request}`) ?? 0 })
}
if (!argv.includes('--no-oracle')) {
  const prepared = peerSessions.map((session) => ({ session, requests: boundRequests.get(session.name)! }))
  const plans = prepared.map((item) => toOraclePlan(item.requests, toViewMessageText, countMessage))
  const excluded = toOracleExclusions(plans, 0.85)
  const rows: Array<Omit<RequestRow, 'baseUncached'>> = []
  const metrics = prepared.map((item, index) => {
    const keeps = toOracleKeeps(item.requests, plans[index], excluded[index], 0.1, 4500)
    const result = runSession(item.session, options, undefined, {}, ((history: ReadonlyArray<never>, _budget: unknown, request: number) => history.filter((_, position) => keeps[request].has(position))) as Peer as never)
    rows.push(...perRequest(result, item.session.name))
    return toSessionMetrics(result, item.session.original, item.session.limit, item.session.price)
  })
  out.push(summarise('oracle 85 %', rows, metrics))
  for (const row of rows) allRows.push({ config: 'oracle 85 %', ...row, baseUncached: base.get(`${row.session}#${row.request}`) ?? 0 })
}
if (!argv.includes('--no-oracle')) {
  // A contiguous oracle: it knows each request's needed facts like toOracleKeeps, but keeps a
  // contiguous recent window (system messages + everything from the earliest tool group or message
  // serving a fact of this request), the shape of what a recent-window policy can send.
  const plans = peerSessions.map((session) => toOraclePlan(boundRequests.get(session.name)!, toViewMessageText, countMessage))
  for (const target of [0.85, 1]) {
  const excluded = toOracleExclusions(plans, target)
  const rows: Array<Omit<RequestRow, 'baseUncached'>> = []
  const metrics = peerSessions.map((session, index) => {
    const requests = boundRequests.get(session.name)!
    const plan = plans[index]
    const result = runSession(session, options, undefined, {}, ((history: ReadonlyArray<{ role: string }>, _budget: unknown, request: number) => {
      const served = plan.served[request].filter((u) => u >= 0 && !excluded[index].has(u))
      const start = served.length === 0 ? requests[request].cut : Math.min(requests[request].cut, ...served)
      return history.filter((message, position) => message.role === 'system' || message.role === 'developer' || position >= start)
    }) as never)
    rows.push(...perRequest(result, session.name))
    return toSessionMetrics(result, session.original, session.limit, session.price)
  })
  out.push(summarise(`window oracle ${target * 100} %`, rows, metrics))
  }
}
// The per-request rows must add up to compare's own totals (relative cost = uncached + 0.1 x cached
// reads, gpt-4o writes nothing), else the extraction above misread the replay.
for (const row of out) {
  const rebuilt = (row.uncached as number) + 0.1 * (row.cached_reads as number)
  if (Math.abs(rebuilt - (row.relative as number)) > (row.requests as number)) throw new Error(`${row.label}: per-request rows give ${rebuilt}, compare's relative cost is ${row.relative}`)
}
for (const row of out) console.log(JSON.stringify(row))
if (rowsFile !== null) writeFileSync(rowsFile, `${allRows.map((row) => JSON.stringify(row)).join('\n')}\n`)
