// The early pass (`compact_early_threshold`, src/core/compaction/early-pass.ts) on generated
// sessions whose tool results are JSON records sharing handles from a small pool (some left as
// text): every view is valid (no pairing problem, tool groups whole), the stored history keeps
// every message as added (never loses history), a result once sent in its form is sent in the
// same form by every later view that holds it and a message a view left out never comes back
// (the decisions are sticky, so the prefix before a new decision stays), a compaction below
// `compact_threshold` happens only where the early trigger may fire (the history with the
// decisions made so far fills the early threshold of the compactable room and JSON records hold
// the record share of it, both recomputed here from the state before the request), a session
// whose results are all text compacts only where the contract would, and two runs send the same
// views.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { computeEffectiveBudget } from '../src/core/budget.js'
import { makePassContext } from '../src/core/compaction/context.js'
import { applySticky } from '../src/core/compaction/sticky.js'
import { findPairingViolations } from '../src/core/formats/tool-pairing.js'
import { makeDerivationMemo } from '../src/core/memo/derivation-memo.js'
import type { Message, Messages } from '../src/core/messages/message.js'
import { toCalibrationPriors } from '../src/core/meter/calibrated-meter.js'
import { fitCalibration, toEstimatorUnits } from '../src/core/meter/calibration.js'
import { estimateOne } from '../src/core/meter/estimate.js'
import { makeInitialState, type State } from '../src/core/state.js'
import { isJsonProjection } from '../src/core/tool-results/json-projection.js'
import { added, configOf, request, stepFor } from '../test/support/core.js'
import { runProperty } from './arbitraries.js'
import { HANDLES, handleTurnArb, toHandleMessages, type HandleTurn } from './handle-turns.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

/** The turns' tool results as JSON records (every fifth left as text), or all as text under `text`. */
const toMessages = (turns: ReadonlyArray<HandleTurn>, text: boolean): Message[] =>
  toHandleMessages(turns, true).map((message, i) => {
    if (message.role !== 'tool' || typeof message.content !== 'string' || text || i % 5 === 4) return message
    const ids = HANDLES.filter((handle) => String(message.content).includes(handle))
    return { ...message, content: JSON.stringify({ ids, note: String(message.content).replace(/[^.]/g, '') || 'none', count: i }) }
  })

const settingsArb = fc.record({
  threshold: fc.constantFrom(0.2, 0.4, 0.6),
  target: fc.constantFrom(0, 0.15, 0.3),
  share: fc.constantFrom(0, 0.3, 0.6),
  projection: fc.constantFrom('handles', 'handle_values', 'named_keys'),
  budget: fc.constantFrom(300, 1200, 100_000),
  meter: fc.constantFrom('estimate', 'calibrated'),
  groups: fc.constantFrom('kept', 'removable', 'early'),
})

const contentOf = (message: Message): string => JSON.stringify(message.content)

/** What the early trigger reads on one request (src/core/request/compaction-trigger.ts `isEarly`), recomputed apart from it. */
interface EarlyReading {
  /** The sticky-applied history's share of the compactable room (E less the system messages; E in estimator units), null without room. */
  readonly share: number | null
  /** The share of that history's tokens held by JSON records (tool results whose truncated form is a JSON projection, or that are one). */
  readonly recordShare: number
}

const sum = (messages: Messages): number => messages.reduce((total, message) => total + estimateOne(message), 0)

/**
 * The early trigger's reading of `state` before a request at `budget`: the state's sticky
 * decisions applied to its non-system history, against E (converted through the calibrated
 * meter's model, fitted from the state's readings, under `token_meter: "calibrated"`) less the
 * system messages' tokens.
 */
const readEarly = (raw: Record<string, unknown>, state: State, budget: number): EarlyReading => {
  const config = configOf(raw)
  const context = makePassContext(config, estimateOne, state.toolNames, makeDerivationMemo(), state.toolResults.spillFailed, state.history)
  const history = applySticky(state.history.filter((message) => message.role !== 'system'), state.compaction.sticky, context)
  const systemTokens = sum(state.history.filter((message) => message.role === 'system'))
  const effective = computeEffectiveBudget(config, budget).effective
  const units = config.token_meter === 'calibrated' ? toEstimatorUnits(fitCalibration(toCalibrationPriors(config), state.meter.calibration?.points ?? []), effective) : effective
  const tokens = sum(history)
  const records = sum(history.filter((message) => isJsonProjection(message) || isJsonProjection(context.truncatedForm(message))))
  return { share: units - systemTokens > 0 ? tokens / (units - systemTokens) : null, recordShare: tokens > 0 ? records / tokens : 0 }
}

interface Sent {
  readonly views: Array<Message[] | undefined>
  /** Per request: the meter's ratio, whether a context:compaction was emitted, and the early trigger's reading before it. */
  readonly passes: Array<{ readonly ratio: number | null; readonly compacted: boolean; readonly early: EarlyReading }>
}

const replay = (config: Record<string, unknown>, messages: ReadonlyArray<Message>, budget: number, where: string): Sent => {
  const step = stepFor(config)
  let state: State = makeInitialState()
  const views: Array<Message[] | undefined> = []
  const passes: Array<{ ratio: number | null; compacted: boolean; early: EarlyReading }> = []
  const forms = new Map<string, string>()
  const sentBefore = new Set<string>()
  const left = new Set<string>()
  messages.forEach((message, at) => {
    state = step(state, added(message)).state
    const early = readEarly(config, state, budget)
    const out = step(state, request({ tokenBudget: budget }))
    state = out.state
    views.push(out.view === undefined ? undefined : [...out.view])
    const hooks = out.effects.flatMap((effect) => (effect.type === 'emit_hook' ? [effect] : []))
    const meter = hooks.find((hook) => hook.name === 'context:token_meter')?.data as { ratio: number | null } | undefined
    passes.push({ ratio: meter?.ratio ?? null, compacted: hooks.some((hook) => hook.name === 'context:compaction'), early })
    // never loses history: the stored messages are the added ones, whole
    expect(state.history.map(contentOf), where).toEqual(messages.slice(0, at + 1).map(contentOf))
    if (out.view === undefined) return
    expect(findPairingViolations(out.view), where).toEqual([])
    const sentIds = new Set(out.view.filter((sent) => sent.role === 'tool').map((sent) => String(sent.tool_call_id)))
    // sticky: a result a view left out after sending it never comes back
    for (const id of left) expect(sentIds.has(id), where).toBe(false)
    for (const id of sentBefore) if (!sentIds.has(id)) left.add(id)
    for (const sent of out.view) {
      if (sent.role !== 'tool') continue
      const id = String(sent.tool_call_id)
      sentBefore.add(id)
      if (!isJsonProjection({ ...sent, _truncated: true })) continue
      const seen = forms.get(id)
      if (seen !== undefined) expect(contentOf(sent), where).toBe(seen)
      forms.set(id, contentOf(sent))
    }
  })
  return { views, passes }
}

describe('the early pass', () => {
  it('views are valid, history is kept whole, decisions are sticky, early passes only from the early threshold; text sessions as without it; deterministic', () => {
    runProperty(
      'early pass: replayed views',
      fc.property(fc.array(handleTurnArb(300), { maxLength: 14 }), settingsArb, (turns, settings) => {
        const base = { tool_result_json_projection: settings.projection, token_meter: settings.meter, tool_result_json_projected_groups: settings.groups, protected_tool_results: 1, compaction_notice_repeat: 'none' }
        const config = { ...base, compact_early_threshold: settings.threshold, compact_early_target: settings.target, compact_early_record_share: settings.share }
        const where = JSON.stringify({ turns: turns.length, settings })
        const records = toMessages(turns, false)
        const sent = replay(config, records, settings.budget, where)
        // a pass below compact_threshold (0.92, where the contract's trigger does not fire) is an early pass: the sticky-applied history
        // fills the early threshold of the compactable room and JSON records hold the record share of it
        sent.passes.forEach((pass, at) => {
          if (!pass.compacted || pass.ratio === null || pass.ratio >= 0.92) return
          expect(pass.early.share, `${where} request ${at}`).not.toBeNull()
          expect(pass.early.share, `${where} request ${at}: share of the room`).toBeGreaterThanOrEqual(settings.threshold)
          expect(pass.early.recordShare, `${where} request ${at}: record share`).toBeGreaterThanOrEqual(settings.share)
        })
        expect(replay(config, records, settings.budget, where)).toEqual(sent)
        // all results text: no record share, so the views are those without the key (share 0 lets any view through)
        if (settings.share > 0) {
          const text = toMessages(turns, true)
          expect(replay(config, text, settings.budget, where).views, where).toEqual(replay(base, text, settings.budget, where).views)
        }
      }),
      numRuns,
    )
  })
})
