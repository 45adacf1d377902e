// The budget rule on valid input (docs/contract.md 17.14): after a pass the view fits E unless the
// irreducible floor (system messages, the protected zones, the open tool group of 17.8) of the list
// the pass starts from (after a summary swap, SPEC 12.6, the swapped list) is itself over E; with
// `compaction_floor_guard: "report"` that case is reported once as `context:compaction-infeasible`
// and compaction is otherwise the contract's.
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { makePassContext } from '../src/core/compaction/context.js'
import { measureFloor } from '../src/core/compaction/floor.js'
import type { Message } from '../src/core/messages/message.js'
import { applySticky } from '../src/core/compaction/sticky.js'
import { makeDerivationMemo } from '../src/core/memo/derivation-memo.js'
import { estimateOne } from '../src/core/meter/estimate.js'
import { isPlainObject } from '../src/core/messages/values.js'
import type { RecordingOp } from '../src/core/replay/recording.js'
import { describeConfig, foldScenario, hookNames, makeScenario, modelWorkingList, runProperty, scenarioArb, seqOfStored, type RequestRecord, type Scenario } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

const viewTokens = (request: RequestRecord): number => (request.view ?? []).reduce((sum, message) => sum + estimateOne(message), 0)

const contextOf = (scenario: Scenario, state: RequestRecord['before']) => makePassContext(scenario.config, estimateOne, state.toolNames, makeDerivationMemo(), state.toolResults.spillFailed)

/** The list a state's sticky decisions make of its history, as the pass counts it (with `_seq`). */
const applied = (scenario: Scenario, request: RequestRecord, state: RequestRecord['before']): { system: number; rest: ReturnType<typeof applySticky> } => {
  const working = modelWorkingList(state.history, request.systemPrompt)
  const system = working.filter((message) => message.role === 'system').reduce((sum, message) => sum + estimateOne(message), 0)
  return { system, rest: applySticky(working.filter((message) => message.role !== 'system'), state.compaction.sticky, contextOf(scenario, state)) }
}

/** The request's view as its pass counted it: the state after, its sticky decisions applied. */
const passTokens = (scenario: Scenario, request: RequestRecord): number => {
  const { system, rest } = applied(scenario, request, request.after)
  return system + rest.reduce((sum, message) => sum + estimateOne(message), 0)
}

/** The floor of the list the request's pass started from (the state before it, its sticky decisions applied). */
const floorBefore = (scenario: Scenario, request: RequestRecord): number => {
  const { system, rest } = applied(scenario, request, request.before)
  return measureFloor(rest, system, scenario.config, contextOf(scenario, request.before)).floor_tokens
}

const isSummaryMessage = (message: Message): boolean => isPlainObject(message.metadata) && message.metadata.type === 'context_summary'

/**
 * The state a summary swap (SPEC 12.6) leaves before the ladder runs, or null when the request's
 * pass swapped nothing in: the summary message the request stored (a `context_summary` message not
 * in the history before) appended to the history before, and the pending span's messages still
 * present recorded as removed (SPEC 7: a removal replaces a truncation or stub).
 */
const swappedBefore = (request: RequestRecord): RequestRecord['before'] | null => {
  const { before, after } = request
  const pending = before.summary.pending
  const stored = new Set(before.history.map(seqOfStored))
  const added = after.history.filter((message) => isSummaryMessage(message) && !stored.has(seqOfStored(message)))
  if (pending === null || added.length === 0) return null
  const absorbed = pending.seqs.filter((seq) => stored.has(seq))
  const without = (set: ReadonlySet<number>): Set<number> => new Set([...set].filter((seq) => !absorbed.includes(seq)))
  const { sticky } = before.compaction
  return {
    ...before,
    history: [...before.history, ...added],
    compaction: { ...before.compaction, sticky: { ...sticky, removed: new Set([...sticky.removed, ...absorbed]), truncated: without(sticky.truncated), stubbed: without(sticky.stubbed) } },
  }
}

/**
 * The floor docs/contract.md 17.14 allows the request's view: that of the list its pass started
 * from, which after a summary swap (SPEC 12.6) is the swapped list (the swap may absorb the first
 * user message, so the next one becomes protected); without a swap, `floorBefore`.
 */
const floorAllowed = (scenario: Scenario, request: RequestRecord): number => {
  const swapped = swappedBefore(request)
  if (swapped === null) return floorBefore(scenario, request)
  const { system, rest } = applied(scenario, request, swapped)
  return measureFloor(rest, system, scenario.config, contextOf(scenario, swapped)).floor_tokens
}

const checkBudgetRule = (scenario: Scenario): void => {
  // Settings where the contract itself lets a view exceed E are left out: a trigger above E
  // (compact_threshold > 1) and a target above E (target_usage > 1).
  if (scenario.config.compact_threshold > 1 || scenario.config.target_usage > 1) return
  // Whether the last view returned (or the start) was within E: the oracle of "reported once".
  let armed = true
  for (const request of foldScenario(scenario).requests) {
    if (request.view === null || request.meterStats === null || request.meterStats.budget <= 1) {
      // No view, or a budget the rule leaves out: the oracle follows the state's own verdict.
      armed = !request.after.compaction.infeasible
      continue
    }
    const effective = request.meterStats.budget
    const tokens = passTokens(scenario, request)
    const reported = hookNames(request.effects).includes('context:compaction-infeasible')
    const where = `op ${request.index} (view ${tokens}, E ${effective}) with ${describeConfig(scenario)}`
    if (tokens <= effective) {
      expect(reported, `${where}: reported while the view fits`).toBe(false)
      expect(request.after.compaction.infeasible, `${where}: the view fits and the report is not re-armed`).toBe(false)
      armed = true
      continue
    }
    expect(floorAllowed(scenario, request), `${where}: a view over E with the floor under E`).toBeGreaterThan(effective)
    expect(request.after.compaction.infeasible, `${where}: over E and not in the reported state`).toBe(true)
    expect(reported, armed ? `${where}: first view over E after one within E not reported` : `${where}: reported twice`).toBe(armed)
    armed = false
  }
}

/** The retention keys (src/core/compaction/retention.ts), each present or absent. */
const retentionKeysArb = fc.record(
  {
    target_basis: fc.constantFrom('budget', 'compactable'),
    tool_result_truncation: fc.constantFrom('head', 'stub', 'mask'),
    protected_recent_tokens: fc.constantFrom(null, 1, 40, 400, 100_000),
    compaction_order: fc.constantFrom('oldest', 'least_referenced', 'least_referenced_per_token'),
  },
  { requiredKeys: [] },
)

const call = (id: string): Record<string, unknown> => ({ id, type: 'function', function: { name: 'bash', arguments: `{"cmd":"${id}"}` } })

describe('the budget rule (docs/contract.md 17.14)', () => {
  // The shrunk case of an adversarial run: calls c0-c3 in one assistant message, results for c1
  // (83 spaces) and c3 (an image block) only, a request at budget 300. The group is open (17.8),
  // so the ladder may not remove it, and the image does not truncate: the floor (335 by the pass's
  // count) is over E = 300 and the 326-token view is what the contract permits. The results for c2
  // and c0 close the group, which then reaches into the protected recent zone: still over E.
  const ops: RecordingOp[] = [
    { op: 'add_message', message: { role: 'assistant', content: '', tool_calls: ['c0', 'c1', 'c2', 'c3'].map(call), uid: 'm1' } },
    { op: 'add_message', message: { role: 'tool', tool_call_id: 'c1', content: ' '.repeat(83), uid: 'm2' } },
    { op: 'add_message', message: { role: 'tool', tool_call_id: 'c3', content: [{ type: 'image', source: `data:${'x'.repeat(440)}` }], uid: 'm3' } },
    { op: 'get_messages_for_request', token_budget: 300, provider: null },
    { op: 'add_message', message: { role: 'tool', tool_call_id: 'c2', content: 'done', uid: 'm4' } },
    { op: 'add_message', message: { role: 'tool', tool_call_id: 'c0', content: 'done', uid: 'm5' } },
    { op: 'get_messages_for_request', token_budget: 300, provider: null },
  ]
  const raw = { max_tokens: 1000, protected_tool_results: -1, compaction_notice_enabled: false, compaction_notice_token_reserve: 0 }

  it('the open tool group over E: the view over E is permitted, reported once under "report", silent by default', () => {
    const contract = foldScenario(makeScenario(raw, ops)).requests
    expect(contract.map(viewTokens)).toEqual([326, 390])
    expect(contract.map((request) => request.view?.map((message) => message.uid))).toEqual([['m1', 'm2', 'm3'], ['m1', 'm2', 'm3', 'm4', 'm5']])
    for (const request of contract) expect(hookNames(request.effects)).not.toContain('context:compaction-infeasible')

    const scenario = makeScenario({ ...raw, compaction_floor_guard: 'report' }, ops)
    const [open, closed] = foldScenario(scenario).requests
    // Compaction is the contract's: the same views.
    expect([open, closed].map((request) => request.view)).toEqual(contract.map((request) => request.view))
    const infeasible = open.effects.find((effect) => effect.type === 'emit_hook' && effect.name === 'context:compaction-infeasible')
    expect(infeasible?.type === 'emit_hook' && infeasible.data).toMatchObject({ floor_tokens: 335, open_group_tokens: 335, budget: 300 })
    expect(floorBefore(scenario, open)).toBeGreaterThan(300)
    expect(floorBefore(scenario, closed)).toBeGreaterThan(300)
    expect(hookNames(closed.effects)).not.toContain('context:compaction-infeasible')
    checkBudgetRule(scenario)
  })

  // A view that fits E on the plain or sticky-only path (no pass decides) re-arms the report too:
  // the open group at 300 (reported), at 10000 (the 326-token view fits), at 300 again (reported).
  it('the report re-arms when a view fits E on the plain path', () => {
    const rearm: RecordingOp[] = [...ops.slice(0, 4), { op: 'get_messages_for_request', token_budget: 10000, provider: null }, ops[3]]
    const scenario = makeScenario({ ...raw, compaction_floor_guard: 'report' }, rearm)
    const requests = foldScenario(scenario).requests
    expect(requests.map(viewTokens)).toEqual([326, 326, 326])
    expect(requests.map((request) => hookNames(request.effects).includes('context:compaction-infeasible'))).toEqual([true, false, true])
    expect(requests.map((request) => request.after.compaction.infeasible)).toEqual([true, false, true])
    checkBudgetRule(scenario)
  })

  // Found by "budget rule: over E only at the floor" (FC_SEED=1455507657): with compact_threshold 0
  // the pass runs on every request; a candidate that fit E re-armed the report, the list the pass
  // returned was over E again (its floor over E), so one over-E episode was reported twice.
  it('a pass that runs on a candidate within E and returns a view over E does not report twice', () => {
    const found = JSON.parse(readFileSync(new URL('./counterexamples/budget-rule-1455507657.json', import.meta.url), 'utf8')) as { rawConfig: Record<string, unknown>; ops: RecordingOp[] }
    const scenario = makeScenario({ ...found.rawConfig, compaction_floor_guard: 'report', compaction_notice_enabled: false, replay_last_user_on_compaction: false }, found.ops)
    const reports = foldScenario(scenario).requests.map((request) => hookNames(request.effects).includes('context:compaction-infeasible'))
    expect(reports).toEqual([false, true, false])
    checkBudgetRule(scenario)
  })

  // Found by "budget rule: over E only at the floor" (FC_SEED=640515045), twice, with
  // protected_recent_tokens 400 (a 120-token zone at levels 7 and 8) and E = 60. The floor (the first
  // and the last message) fits E, but the ladder measured the zone again on the list it had itself
  // shortened: under "mask" the masked result fit in the zone, so its call group could not be
  // removed (182 tokens as the pass counts them); under "head" level 7 removed the long assistant message and the
  // zone then reached back over the user message level 7 had stubbed, which level 8 then kept. The
  // zone is now decided on the list the pass started from, as the floor measures it.
  it.each(['mask', 'removal'])('the recent zone by tokens is the one the pass started from (%s)', (name) => {
    const found = JSON.parse(readFileSync(new URL(`./counterexamples/budget-rule-640515045-${name}.json`, import.meta.url), 'utf8')) as { rawConfig: Record<string, unknown>; ops: RecordingOp[] }
    const scenario = makeScenario({ ...found.rawConfig, compaction_floor_guard: 'report', compaction_notice_enabled: false, replay_last_user_on_compaction: false }, found.ops)
    const [request] = foldScenario(scenario).requests
    expect(floorBefore(scenario, request)).toBeLessThanOrEqual(60)
    expect(passTokens(scenario, request)).toBe(floorBefore(scenario, request))
    checkBudgetRule(scenario)
  })

  // Found by "budget rule: over E only at the floor" (FC_SEED=640515045 FC_NUM_RUNS=1000), with
  // protected_recent_tokens 100000 (every message in the zone) and E = 286: level 8 stubs the first
  // user message even inside the zone (SPEC 6.5), and the stub of its 81 characters is larger than
  // the message, which the floor counted whole (286). The floor now counts the stub (299), the view.
  it('the first user message inside the recent zone counts as its stub', () => {
    const found = JSON.parse(readFileSync(new URL('./counterexamples/budget-rule-640515045-first-stub.json', import.meta.url), 'utf8')) as { rawConfig: Record<string, unknown>; ops: RecordingOp[] }
    const scenario = makeScenario({ ...found.rawConfig, compaction_floor_guard: 'report', compaction_notice_enabled: false, replay_last_user_on_compaction: false }, found.ops)
    const [over] = foldScenario(scenario).requests
    expect(over.meterStats?.budget).toBe(286)
    expect(passTokens(scenario, over)).toBe(299)
    expect(floorBefore(scenario, over)).toBe(299)
    expect(hookNames(over.effects)).toContain('context:compaction-infeasible')
    checkBudgetRule(scenario)
  })

  // Found by "budget rule: over E only at the floor" (FC_SEED=640515045), summary strategy, E = 78.
  // The request's pass swaps the pending summary (SPEC 12.6) of the first three messages in: the
  // first user message is absorbed, so the next one becomes the protected first user message (17.2:
  // stubbed, never removed) and the summary message is added. The floor of the list before the swap
  // fits E; that of the swapped list the ladder starts from does not, and the view over E is the one
  // 17.14 permits, reported once.
  it('after a summary swap the floor is that of the swapped list', () => {
    const found = JSON.parse(readFileSync(new URL('./counterexamples/budget-rule-640515045-summary-swap.json', import.meta.url), 'utf8')) as { rawConfig: Record<string, unknown>; ops: RecordingOp[] }
    const scenario = makeScenario({ ...found.rawConfig, compaction_floor_guard: 'report', compaction_notice_enabled: false, replay_last_user_on_compaction: false }, found.ops)
    const requests = foldScenario(scenario).requests
    expect(requests.map((request) => request.meterStats?.budget)).toEqual([78, 78, 78])
    expect(requests.map((request) => swappedBefore(request) !== null)).toEqual([false, true, false])
    const swap = requests[1]
    // Measured before the swap the floor fits E (the old oracle's verdict: a violation) ...
    expect(floorBefore(scenario, swap)).toBe(78)
    // ... measured on the swapped list it is over E, and the pass returns exactly that floor.
    expect(floorAllowed(scenario, swap)).toBe(142)
    expect(passTokens(scenario, swap)).toBe(142)
    // The episode over E starts at the first request (floor 111, no swap): reported there once, the
    // state stays reported through the swap.
    expect(requests.map((request) => [passTokens(scenario, request), floorAllowed(scenario, request)])).toEqual([[111, 111], [142, 142], [272, 272]])
    expect(requests.map((request) => hookNames(request.effects).includes('context:compaction-infeasible'))).toEqual([true, false, false])
    expect(requests.map((request) => request.after.compaction.infeasible)).toEqual([true, true, true])
    checkBudgetRule(scenario)
  })

  it('a view over E has its floor over E, and is reported once under "report" (progressive and summary)', () => {
    runProperty(
      'budget rule: over E only at the floor',
      fc.property(scenarioArb({ strategies: ['progressive', 'summary'], pressure: true, predicate: false, meters: ['estimate'] }), retentionKeysArb, (scenario, retention) =>
        checkBudgetRule(makeScenario({ ...scenario.rawConfig, ...retention, compaction_floor_guard: 'report', compaction_notice_enabled: false, replay_last_user_on_compaction: false }, scenario.ops)),
      ),
      numRuns,
    )
  })
})
