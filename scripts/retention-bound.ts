// An oracle bound on needed-fact recall at a cost (tau-bench, cost-capped) and at a budget (Claude
// Code, budget-capped), for ANY compaction policy of two classes (docs/evaluation.md, "An upper
// bound on recall at a cost / a budget"):
//   (a) views made of history messages kept whole or head-truncated (what the library and its peers
//       do; summaries are not in this class): a fact held by message m costs at least the tokens of
//       the prefix of m's string that ends with the fact's first occurrence;
//   (b) any content at all (excerpts, summaries, text written by an oracle): a fact costs at least
//       its own tokens. Every class (a) view is a class (b) view, so (a)'s bound is the larger of
//       the two.
// Needed facts are the library's own (toRecallFigures, src/core/economics/recall.ts, the function
// compare's `needed_facts` comes from); tokens are the provider model's (gpt-tokenizer, o200k: the
// count `--usage simulated` bills with, never the meter's estimate). The cost accounting is this
// file's own arithmetic, not the library's cache model (the bound must not inherit its choices):
// per request, cost >= r x tokens(view) + (1 - r) x tokens never sent before, with r the
// cached-to-uncached price ratio (0.1 in relative units, cached_input / input in dollars). Each
// bound again with compare's own cache rule on top (a request reads from the previous view only,
// message by message: toRunPrices).
//
//   npx tsx scripts/retention-bound.ts [--check] [--oracle] [--no-budget] [--root DIR] [--rows FILE]
//                                      [--oracle-ratio R] [--oracle-share S]
//   npm run evaluation:bound [-- --check --oracle]
//
// --oracle replays class (a) oracles (toOraclePlan / toOracleKeeps: they know each request's needed
// facts) as peers through compare's provider and cache model: witnesses that a recall is reachable
// at a cost within the budget, not bounds (R: the cached price ratio their lazy drops assume, 0.1;
// S: the share of each Claude Code request's allowance they fill, 0.999).
// --check also replays every session with no compaction (and tau-bench with `recommended`, its JSON
// tool results kept with their whitespace: toCheckedRecommended) under
// compare's provider model and fails when a measured point lies below the bound, when compare's
// `needed_facts` differs from the bound's, or when the bound's token count of the full views differs
// from compare's `input_tokens` of the no-compaction replay.
import { existsSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { toRecallFigures, toViewMessageText } from '../src/core/economics/recall.js'
import type { Recording } from '../src/core/replay/recording.js'
import type { Message } from '../src/core/messages/message.js'

/** A needed fact of one request with the two lower-bound prices of holding it (tokens). */
export interface BoundFact {
  readonly fact: string
  /** class (a): the cheapest share of a message-string prefix that holds it (tokens). */
  readonly wholeOrHead: number
  /** class (b): the cheapest share of a needed fact's own text that holds it (tokens). */
  readonly anyExcerpt: number
}

/**
 * One request of a session as the bound sees it: the tokens every view must hold (system messages
 * and the last two messages, counted as whole messages), the part of those never in the history at
 * an earlier request of the session (so never sent before: billed uncached), and the needed facts.
 */
export interface BoundRequest {
  readonly opIndex: number
  readonly mandatoryTokens: number
  readonly freshTokens: number
  /** tokens of the whole history at this request (what a policy that never compacts sends). */
  readonly historyTokens: number
  /** the history at this request and where its last two messages start (index) */
  readonly history: ReadonlyArray<Message>
  readonly cut: number
  readonly facts: ReadonlyArray<BoundFact>
}

const isSystem = (message: Message): boolean => message.role === 'system' || message.role === 'developer'

/** Every string of a message as sent (metadata is never sent), in order. */
export const toMessageStrings = (value: unknown, out: string[] = []): string[] => {
  if (typeof value === 'string') {
    if (value !== '') out.push(value)
  } else if (Array.isArray(value)) {
    for (const item of value) toMessageStrings(item, out)
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) if (key !== 'metadata') toMessageStrings(item, out)
  }
  return out
}

/** A message's identity on the wire: its JSON without metadata (as compare's cache model keys it). */
const wireKey = (message: Message): string => JSON.stringify(message, (key, value: unknown) => (key === 'metadata' ? undefined : value))

/**
 * Class (a) prices of `facts` over the `sources` (the messages a policy may keep, beside the
 * mandatory ones). A head-truncated string s of a source holds exactly the facts whose first
 * occurrence in s ends within the kept head; keeping the head up to the j-th such end costs
 * T_j = countText(head) and holds c_j facts. Charging each fact it holds T_j / c_j never charges a
 * view more than it pays: the facts a view holds can be assigned each to one kept head holding it,
 * and a head assigned n <= c_j facts pays T_j >= n x T_j / c_j. So the cheapest such share over all
 * heads holding a fact is a price p(f) with cost(view) >= sum of p(f) over the facts it holds.
 */
export const toWholeOrHeadPrices = (facts: ReadonlyArray<string>, sources: ReadonlyArray<Message>, countText: (text: string) => number): number[] => {
  const prices = facts.map(() => Infinity)
  for (const source of sources) {
    for (const text of toMessageStrings(source)) {
      const ends: Array<{ index: number; end: number }> = []
      facts.forEach((fact, index) => {
        const at = text.indexOf(fact)
        if (at >= 0) ends.push({ index, end: at + fact.length })
      })
      if (ends.length === 0) continue
      ends.sort((x, y) => x.end - y.end)
      // the head through the fact of rank r holds at least the r + 1 facts ending at or before it
      // (facts tied at the same end get the full count from the last of them, through the minimum
      // over later ranks below)
      const shares = ends.map((item, rank) => countText(text.slice(0, item.end)) / (rank + 1))
      let best = Infinity
      for (let rank = ends.length - 1; rank >= 0; rank -= 1) {
        best = Math.min(best, shares[rank])
        prices[ends[rank].index] = Math.min(prices[ends[rank].index], best)
      }
    }
  }
  return prices
}

/**
 * Class (b) prices: a text holding fact f holds a needed fact g with f inside g, at best f
 * alone; the cheapest text holding g is g itself (countText(g) tokens), and it holds every needed
 * fact inside g, so by the same assignment argument f's price is the cheapest
 * countText(g) / |needed facts inside g| over the needed g that contain f (g = f included).
 */
export const toAnyExcerptPrices = (facts: ReadonlyArray<string>, countText: (text: string) => number): number[] => {
  const prices = facts.map(() => Infinity)
  for (const holder of facts) {
    const inside = facts.map((fact, index) => (holder.includes(fact) ? index : -1)).filter((index) => index >= 0)
    const share = countText(holder) / inside.length
    for (const index of inside) prices[index] = Math.min(prices[index], share)
  }
  return prices
}

/**
 * The requests of one recording for the bound: history as the input builds it (`add_message`
 * appends, `set_messages` replaces, `clear` empties), the needed facts of each request exactly as
 * `toRecallFigures` defines them (with no views every needed fact is lost, so `lost` lists them),
 * mandatory tokens by `countMessage` (the provider's count of a whole message), pieces by
 * `countText`.
 */
export const toBoundRequests = (recording: Recording, countMessage: (message: Message) => number, countText: (text: string) => number): BoundRequest[] => {
  const needed = toRecallFigures(recording, []).requests
  const requests: BoundRequest[] = []
  const seen = new Set<string>()
  let history: Message[] = []
  recording.ops.forEach((op, opIndex) => {
    if (op.op === 'add_message') history.push(op.message)
    else if (op.op === 'set_messages') history = [...op.messages]
    else if (op.op === 'clear') history = []
    if (op.op !== 'get_messages_for_request') return
    const request = needed[requests.length]
    if (request === undefined || request.op_index !== opIndex) throw new Error(`request at op ${opIndex}: toRecallFigures disagrees on the requests`)
    const cut = Math.max(0, history.length - 2)
    const mandatory = history.filter((message, index) => isSystem(message) || index >= cut)
    let mandatoryTokens = 0
    let freshTokens = 0
    const freshKeys = new Set<string>()
    for (const message of mandatory) {
      const tokens = countMessage(message)
      mandatoryTokens += tokens
      const key = wireKey(message)
      if (!seen.has(key) && !freshKeys.has(key)) {
        freshKeys.add(key)
        freshTokens += tokens
      }
    }
    let historyTokens = 0
    for (const message of history) {
      seen.add(wireKey(message))
      historyTokens += countMessage(message)
    }
    const facts = request.lost
    const sources = history.filter((message, index) => index < cut && !isSystem(message))
    const heads = toWholeOrHeadPrices(facts, sources, countText)
    const excerpts = toAnyExcerptPrices(facts, countText)
    requests.push({ opIndex, mandatoryTokens, freshTokens, historyTokens, history: [...history], cut, facts: facts.map((fact, index) => ({ fact, wholeOrHead: heads[index], anyExcerpt: excerpts[index] })) })
  })
  return requests
}

/**
 * Class (a) and (b) prices of every needed fact of every request of one session, in uncached-token
 * units (a token billed uncached costs 1, a cached one `ratio`), under compare's own cache rule on
 * top of the assumptions above: a request reads from the cache only what the previous request's view
 * held as the identical message (src/core/economics/cache.ts compares messages by their JSON), so a
 * piece held at requests j..k that the view at j - 1 did not hold is billed uncached at j and at
 * best cached after: T x (1 + ratio x (k - j)). The one way to hold a message from the cache at
 * once is to keep it whole from the requests where it was one of the last two (the view held it
 * whole there): ratio x W per request. A policy's views decompose, message by message, into such
 * runs; each run is one of the items below or costs at least the items it splits into (the heads
 * of each of its strings), and holds the (request, fact) pairs of its items, so charging each pair
 * the cheapest cost / pairs-held share over the items that hold it never exceeds what the policy
 * pays (the assignment argument of toWholeOrHeadPrices). Items:
 * - class (a): the head of each string of each source message through each needed fact's first
 *   occurrence, held over any run of consecutive requests where the message is a source; and the
 *   whole message kept on after its last request among the last two;
 * - class (b): each needed fact's own text, held over any run of requests, and the same whole
 *   messages kept on.
 * Needs a history that only grows (tau-bench); throws otherwise.
 */
export const toRunPrices = (
  requests: ReadonlyArray<BoundRequest>,
  countMessage: (message: Message) => number,
  countText: (text: string) => number,
  ratio: number,
): { readonly wholeOrHead: number[][]; readonly anyExcerpt: number[][] } => {
  const n = requests.length
  const factsAt = requests.map((request) => request.facts.map((item) => item.fact))
  const wholeOrHead = factsAt.map((facts) => facts.map(() => Infinity))
  const anyExcerpt = factsAt.map((facts) => facts.map(() => Infinity))
  for (let q = 1; q < n; q += 1) {
    const previous = requests[q - 1].history
    const current = requests[q].history
    if (current.length < previous.length || previous.some((message, index) => current[index] !== message)) throw new Error('toRunPrices: the history must only grow')
  }
  // One item family: runs [j..k] within [from..to], costing cost(j, k), holding count[q] pairs at
  // request q (holds(q, index) says which); every held pair gets the cheapest share.
  const applyRuns = (targets: number[][], from: number, to: number, cost: (j: number, k: number) => number, holds: (q: number, index: number) => boolean, startsAt?: number): void => {
    const count = new Array<number>(n).fill(0)
    for (let q = from; q <= to; q += 1) count[q] = factsAt[q].filter((_, index) => holds(q, index)).length
    const best = new Array<number>(n).fill(Infinity)
    for (let j = from; j <= (startsAt ?? to); j += 1) {
      let held = 0
      for (let k = j; k <= to; k += 1) {
        held += count[k]
        if (held === 0) continue
        const share = cost(j, k) / held
        for (let q = j; q <= k; q += 1) if (share < best[q]) best[q] = share
      }
    }
    for (let q = from; q <= to; q += 1) {
      if (count[q] === 0) continue
      factsAt[q].forEach((_, index) => {
        if (holds(q, index) && best[q] < targets[q][index]) targets[q][index] = best[q]
      })
    }
  }
  const messages = n === 0 ? [] : requests[n - 1].history
  messages.forEach((message, position) => {
    if (isSystem(message)) return
    // requests where the message is a source (before the last two), and its last one among the last two
    let from = -1
    let lastMandatory = -1
    for (let q = 0; q < n; q += 1) {
      if (position >= requests[q].history.length) continue
      if (position < requests[q].cut) {
        if (from < 0) from = q
      } else lastMandatory = q
    }
    if (from < 0) return
    const strings = toMessageStrings(message)
    const inMessage = (q: number, index: number): boolean => strings.some((text) => text.includes(factsAt[q][index]))
    if (lastMandatory >= 0 && lastMandatory + 1 === from) {
      const whole = countMessage(message)
      for (const targets of [wholeOrHead, anyExcerpt]) applyRuns(targets, from, n - 1, (_j, k) => ratio * whole * (k - lastMandatory), inMessage, from)
    }
    for (const text of strings) {
      const ends = new Map<string, number>()
      for (let q = from; q < n; q += 1)
        for (const fact of factsAt[q]) {
          const at = text.indexOf(fact)
          if (at >= 0) ends.set(fact, at + fact.length)
        }
      for (const end of new Set(ends.values())) {
        const head = countText(text.slice(0, end))
        applyRuns(wholeOrHead, from, n - 1, (j, k) => head * (1 + ratio * (k - j)), (q, index) => (ends.get(factsAt[q][index]) ?? Infinity) <= end)
      }
    }
  })
  for (const holder of new Set(factsAt.flat())) {
    const own = countText(holder)
    applyRuns(anyExcerpt, 0, n - 1, (j, k) => own * (1 + ratio * (k - j)), (q, index) => holder.includes(factsAt[q][index]))
  }
  return { wholeOrHead, anyExcerpt }
}

/**
 * A class (a) oracle policy, to measure how close to the bound a policy can come (it knows each
 * request's needed facts, so no agent could run it: it is only a witness that a cost is reachable).
 * Its units are the messages, a tool group (an assistant message with tool calls and their results)
 * being one unit so that every view stays valid. Every needed fact is served by the unit of its
 * latest source before the last two messages (`served`); a unit is kept whole from when it appears
 * to the last request it serves (`until`).
 */
export interface OraclePlan {
  readonly unit: ReadonlyArray<number>
  readonly tokens: ReadonlyMap<number, number>
  /** per request, per needed fact: the unit serving it (-1: none) */
  readonly served: ReadonlyArray<ReadonlyArray<number>>
  /** what keeping each serving unit costs at most, in cached tokens: its tokens x requests kept beyond the last two */
  readonly keepCost: ReadonlyMap<number, number>
  /** positions of tool results the oracle sends cut, and where (characters) */
  readonly cuts: ReadonlyMap<number, number>
  /** tokens of each position as the oracle sends it before the last two (cut), and whole */
  readonly sent: ReadonlyArray<number>
  readonly whole: ReadonlyArray<number>
}

/** The oracle's plan for one session (`toOracleKeeps` runs it). */
export const toOraclePlan = (
  requests: ReadonlyArray<BoundRequest>,
  textOf: (message: Message) => string,
  countMessage: (message: Message) => number,
  heads = false,
): OraclePlan => {
  const history = requests.length === 0 ? [] : requests[requests.length - 1].history
  const unit = history.map((_, index) => index)
  const callOwner = new Map<string, number>()
  history.forEach((message, index) => {
    const calls = (message as { tool_calls?: ReadonlyArray<{ id?: unknown }> }).tool_calls
    if (message.role === 'assistant' && Array.isArray(calls)) for (const call of calls) if (typeof call.id === 'string') callOwner.set(call.id, index)
    const answered = (message as { tool_call_id?: unknown }).tool_call_id
    if (message.role === 'tool' && typeof answered === 'string' && callOwner.has(answered)) unit[index] = callOwner.get(answered)!
  })
  const lastMandatory = new Map<number, number>()
  requests.forEach((request, q) => {
    for (let index = request.cut; index < request.history.length; index += 1) lastMandatory.set(unit[index], q)
  })
  const until = new Map<number, number>()
  const served = requests.map((request, q) =>
    request.facts.map(({ fact }) => {
      for (let position = request.cut - 1; position >= 0; position -= 1) {
        if (isSystem(history[position]) || !textOf(history[position]).includes(fact)) continue
        until.set(unit[position], Math.max(until.get(unit[position]) ?? -1, q))
        return unit[position]
      }
      return -1
    }),
  )
  // with `heads`, a tool result is cut after the last needed fact it serves (a result serving none
  // keeps HEAD_OF_IDLE characters, so its call still has an answer): one cut per result, the same
  // at every request, so the cut result stays cached once sent
  const cuts = new Map<number, number>()
  if (heads) {
    history.forEach((message, position) => {
      if (message.role !== 'tool' || typeof message.content !== 'string' || !until.has(unit[position])) return
      let end = -1
      requests.forEach((request, q) =>
        request.facts.forEach(({ fact }, index) => {
          const at = served[q][index] === unit[position] ? (message.content as string).indexOf(fact) : -1
          if (at >= 0) end = Math.max(end, at + fact.length)
        }),
      )
      if (end < 0) end = Math.min(message.content.length, HEAD_OF_IDLE)
      if (end < message.content.length) cuts.set(position, end)
    })
  }
  const tokens = new Map<number, number>()
  const sent = history.map((message, index) => countMessage(toOracleMessage(message, cuts.get(index))))
  const whole = history.map((message) => countMessage(message))
  history.forEach((_, index) => tokens.set(unit[index], (tokens.get(unit[index]) ?? 0) + sent[index]))
  const keepCost = new Map<number, number>()
  for (const [u, last] of until) keepCost.set(u, tokens.get(u)! * Math.max(1, last - (lastMandatory.get(u) ?? -1)))
  return { unit, tokens, served, keepCost, cuts, sent, whole }
}

/** Characters an oracle keeps of a tool result in a kept group that serves no fact itself. */
const HEAD_OF_IDLE = 40

/** A message as the oracle sends it: whole, or its string content cut at `cut` characters. */
export const toOracleMessage = (message: Message, cut: number | undefined): Message =>
  cut === undefined || typeof message.content !== 'string' ? message : { ...message, content: message.content.slice(0, cut) }

/**
 * The requests split where the history stops only growing (a `set_messages` or `clear`): request
 * indices, one array per segment; within one, positions are identities.
 */
export const toSegments = (requests: ReadonlyArray<BoundRequest>): number[][] => {
  const segments: number[][] = []
  requests.forEach((request, q) => {
    const previous = q === 0 ? null : requests[q - 1].history
    const grows = previous !== null && request.history.length >= previous.length && previous.every((message, index) => request.history[index] === message)
    if (grows) segments[segments.length - 1].push(q)
    else segments.push([q])
  })
  return segments
}

/**
 * The positions each request's view keeps under `plan`, serving only the units not in `excluded`:
 * the system messages, every unit holding one of the last two messages, and every serving unit from
 * when it appears to the last request it serves; a unit no longer needed leaves lazily, only when
 * what its leaving saves in cached reads over the rest of the session (ratio x its tokens x
 * requests left) outweighs re-billing the kept tokens after it ((1 - ratio) x those tokens); when a
 * view is over its budget (`budgets`: one for all, or one per request, in counted tokens) the
 * units no longer needed leave, then serving units, those holding the fewest facts of this and
 * later requests per token first.
 */
export const toOracleKeeps = (
  requests: ReadonlyArray<BoundRequest>,
  plan: OraclePlan,
  excluded: ReadonlySet<number>,
  ratio: number,
  budgets: number | ReadonlyArray<number>,
): ReadonlyArray<ReadonlySet<number>> => {
  const { unit } = plan
  const until = new Map<number, number>()
  plan.served.forEach((units, q) => {
    for (const u of units) if (u >= 0 && !excluded.has(u)) until.set(u, Math.max(until.get(u) ?? -1, q))
  })
  let previous = new Set<number>()
  return requests.map((request, q) => {
    const budget = typeof budgets === 'number' ? budgets : budgets[q]
    const fixed = new Set<number>()
    request.history.forEach((message, index) => {
      if (isSystem(message) || index >= request.cut) fixed.add(unit[index])
    })
    const present = [...new Set(request.history.map((_, index) => unit[index]))]
    // a unit's tokens in this view: its members present so far, whole among the last two
    const unitSize = new Map<number, number>()
    request.history.forEach((_, index) => unitSize.set(unit[index], (unitSize.get(unit[index]) ?? 0) + (index >= request.cut ? plan.whole[index] : plan.sent[index])))
    const size = (units: ReadonlyArray<number>): number => units.reduce((sum, u) => sum + unitSize.get(u)!, 0)
    const serving = (u: number): boolean => (until.get(u) ?? -1) >= q
    let kept = present.filter((u) => fixed.has(u) || serving(u) || previous.has(u))
    const droppable = kept.filter((u) => !fixed.has(u) && !serving(u))
    if (droppable.length > 0) {
      const first = Math.min(...droppable)
      const after = kept.filter((u) => u > first && previous.has(u) && !droppable.includes(u))
      if (ratio * size(droppable) * (requests.length - q) > (1 - ratio) * size(after) || size(kept) > budget) kept = kept.filter((u) => !droppable.includes(u))
    }
    // the units holding the fewest facts of this and later requests per token leave first
    const facts = new Map<number, number>()
    for (let later = q; later < requests.length; later += 1) for (const u of plan.served[later]) if (u >= 0 && !excluded.has(u)) facts.set(u, (facts.get(u) ?? 0) + 1)
    const worth = (u: number): number => (facts.get(u) ?? 0) / Math.max(1, unitSize.get(u)!)
    const optional = kept.filter((u) => !fixed.has(u)).sort((x, y) => worth(x) - worth(y) || unitSize.get(y)! - unitSize.get(x)!)
    for (const u of optional) {
      if (size(kept) <= budget) break
      kept = kept.filter((other) => other !== u)
    }
    previous = new Set(kept)
    const keep = new Set<number>()
    request.history.forEach((_, index) => {
      if (previous.has(unit[index])) keep.add(index)
    })
    return keep
  })
}

/**
 * The units the oracle stops serving to reach `target` recall over all sessions pooled: the
 * serving units by keep cost per fact served, dearest first, left out while the facts still served
 * stay at or above the target. Returns one excluded set per session.
 */
export const toOracleExclusions = (plans: ReadonlyArray<OraclePlan>, target: number): ReadonlyArray<ReadonlySet<number>> => {
  const needed = plans.reduce((sum, plan) => sum + plan.served.reduce((total, units) => total + units.length, 0), 0)
  const units: Array<{ session: number; unit: number; pairs: number; cost: number }> = []
  let served = 0
  plans.forEach((plan, session) => {
    const pairs = new Map<number, number>()
    for (const row of plan.served) for (const u of row) if (u >= 0) pairs.set(u, (pairs.get(u) ?? 0) + 1)
    for (const [u, count] of pairs) {
      units.push({ session, unit: u, pairs: count, cost: plan.keepCost.get(u)! })
      served += count
    }
  })
  units.sort((x, y) => y.cost / y.pairs - x.cost / x.pairs)
  const excluded = plans.map(() => new Set<number>())
  for (const item of units) {
    if (served - item.pairs < target * needed) continue
    excluded[item.session].add(item.unit)
    served -= item.pairs
  }
  return excluded
}

/** Prices per token: `cached` for what was sent before, `uncached` for what was not. */
export interface TokenPrices {
  readonly uncached: number
  readonly cached: number
}

/** Relative units: uncached input 1.0, cached 0.1 (compare's `relative_cost`). */
export const RELATIVE: TokenPrices = { uncached: 1, cached: 0.1 }

/**
 * A cost-capped curve: the cost every policy pays with no fact held, and the sorted prices of the
 * facts (each fact's token price at the cached rate: a source was sent before, at best). The
 * cheapest way to hold R facts costs at least mandatory + the R cheapest prices.
 */
export interface CostCurve {
  readonly needed: number
  readonly mandatory: number
  readonly prices: ReadonlyArray<number>
}

/**
 * The curve of a set of requests under `prices`, each fact priced by `factCost` (cost units).
 * Mandatory cost: every request pays its mandatory tokens at least at the cached price, and the
 * fresh ones the difference to the uncached price once (they were never sent before, so no cache
 * can hold them).
 */
export const toCostCurve = (
  requests: ReadonlyArray<BoundRequest>,
  prices: TokenPrices,
  factCost: (request: BoundRequest, index: number, requestIndex: number) => number,
  capacity: (request: BoundRequest) => number = () => Infinity,
): CostCurve => {
  let mandatory = 0
  const factPrices: number[] = []
  requests.forEach((request, requestIndex) => {
    mandatory += prices.cached * request.mandatoryTokens + (prices.uncached - prices.cached) * request.freshTokens
    // a view holds at most `capacity` of this request's facts: at best its cheapest ones
    const own = request.facts.map((_, index) => factCost(request, index, requestIndex)).sort((x, y) => x - y)
    factPrices.push(...own.slice(0, Math.max(0, Math.min(own.length, capacity(request)))))
  })
  factPrices.sort((x, y) => x - y)
  return { needed: requests.reduce((sum, request) => sum + request.facts.length, 0), mandatory, prices: factPrices }
}

/**
 * How many of a request's facts a view within `budget` counted tokens can hold, for class `which`:
 * the count of its cheapest token prices that fit beside the mandatory tokens (`maxFactsInRoom`);
 * a class (a) view is a class (b) one, so (a) takes the smaller of the two counts.
 */
export const capacityWithin =
  (budget: number, which: 'wholeOrHead' | 'anyExcerpt') =>
  (request: BoundRequest): number => {
    const room = budget - request.mandatoryTokens
    const b = maxFactsInRoom(
      request.facts.map((fact) => fact.anyExcerpt),
      room,
    )
    return which === 'anyExcerpt'
      ? b
      : Math.min(
          b,
          maxFactsInRoom(
            request.facts.map((fact) => fact.wholeOrHead),
            room,
          ),
        )
  }

/**
 * The basic curve of class `which`: a fact held at a request costs at least its token price at the
 * cached rate (it adds at least that many tokens to the view, billed at least cached).
 */
export const toBasicCurve = (requests: ReadonlyArray<BoundRequest>, prices: TokenPrices, which: 'wholeOrHead' | 'anyExcerpt', budget = Infinity): CostCurve =>
  toCostCurve(requests, prices, (request, index) => prices.cached * request.facts[index][which], capacityWithin(budget, which))

/** Joins curves (sessions pooled: the cheapest facts over all of them). */
export const joinCurves = (curves: ReadonlyArray<CostCurve>): CostCurve => ({
  needed: curves.reduce((sum, curve) => sum + curve.needed, 0),
  mandatory: curves.reduce((sum, curve) => sum + curve.mandatory, 0),
  prices: curves.flatMap((curve) => curve.prices).sort((x, y) => x - y),
})

/** The least cost of holding `count` facts (Infinity when some fact has no source). */
export const minCostFor = (curve: CostCurve, count: number): number => {
  let cost = curve.mandatory
  for (let index = 0; index < count; index += 1) cost += index < curve.prices.length ? curve.prices[index] : Infinity
  return cost
}

/** The most facts any policy of the class can hold within `cap` (cost units of the curve). */
export const maxFactsWithin = (curve: CostCurve, cap: number): number => {
  let cost = curve.mandatory
  if (cost > cap) return 0
  let count = 0
  while (count < curve.prices.length && cost + curve.prices[count] <= cap) {
    cost += curve.prices[count]
    count += 1
  }
  return count
}

/** Facts needed to reach `recall` (a fraction) of `needed`. */
export const factsFor = (needed: number, recall: number): number => Math.ceil(recall * needed - 1e-9)

/**
 * Budget-capped bound of one request: the most needed facts a view can hold when the content left
 * after the mandatory tokens is `room` tokens: the count of the cheapest prices that fit (any set of
 * facts a view holds has prices summing to at most what it spends on them). A request whose
 * mandatory part alone does not fit (`room` < 0) holds nothing within the budget.
 */
export const maxFactsInRoom = (prices: ReadonlyArray<number>, room: number): number => {
  if (room < 0) return 0
  const sorted = [...prices].sort((x, y) => x - y)
  let used = 0
  let count = 0
  while (count < sorted.length && used + sorted[count] <= room) {
    used += sorted[count]
    count += 1
  }
  return count
}

/**
 * A witness that a class (a) selection holds every needed fact of a request: for each fact the
 * cheapest head of any source string through its first occurrence, heads of the same string merged
 * (the longest kept), in counted tokens: the heads' own counts plus `perMessage` framing tokens per
 * message cut (the provider counter's 4 per message). It ignores what a valid view needs beyond the
 * heads (a cut message's other strings, a tool result's call), so it is an estimate of what holding
 * them costs, not a bound; the bound is `toBudgetBound`.
 */
export const toHeadWitness = (request: BoundRequest, countText: (text: string) => number, perMessage = 4): number => {
  const longest = new Map<string, { text: string; end: number; message: number }>()
  for (const { fact } of request.facts) {
    let best: { key: string; text: string; end: number; message: number; tokens: number } | null = null
    request.history.forEach((message, position) => {
      if (position >= request.cut || isSystem(message)) return
      toMessageStrings(message).forEach((text, index) => {
        const at = text.indexOf(fact)
        if (at < 0) return
        const tokens = countText(text.slice(0, at + fact.length))
        if (best === null || tokens < best.tokens) best = { key: `${position}:${index}`, text, end: at + fact.length, message: position, tokens }
      })
    })
    if (best === null) continue
    const chosen: { key: string; text: string; end: number; message: number } = best
    const known = longest.get(chosen.key)
    if (known === undefined || known.end < chosen.end) longest.set(chosen.key, { text: chosen.text, end: chosen.end, message: chosen.message })
  }
  let tokens = 0
  for (const head of longest.values()) tokens += countText(head.text.slice(0, head.end))
  return tokens + perMessage * new Set([...longest.values()].map((head) => head.message)).size
}

/** The budget-capped bound of a session: per request, room = content budget - mandatory tokens. */
export const toBudgetBound = (
  requests: ReadonlyArray<BoundRequest>,
  contentBudget: number,
): { readonly needed: number; readonly wholeOrHead: number; readonly anyExcerpt: number; readonly unfit: number } => {
  let needed = 0
  let wholeOrHead = 0
  let anyExcerpt = 0
  let unfit = 0
  for (const request of requests) {
    const room = contentBudget - request.mandatoryTokens
    if (room < 0) unfit += 1
    needed += request.facts.length
    const b = maxFactsInRoom(
      request.facts.map((fact) => fact.anyExcerpt),
      room,
    )
    anyExcerpt += b
    // every class (a) view is a class (b) view: the smaller count bounds it
    wholeOrHead += Math.min(
      b,
      maxFactsInRoom(
        request.facts.map((fact) => fact.wholeOrHead),
        room,
      ),
    )
  }
  return { needed, wholeOrHead, anyExcerpt, unfit }
}

// ---------------------------------------------------------------------------------------------
// The shell: sessions, the provider's tokenizer and prices, the tables.

const TAU = { dir: 'openai-chat', model: 'gpt-4o', budget: 4500, capRelative: 702_511, capUsd: 4.0632, recalls: [0.73, 0.85, 0.9, 1] }
const CLAUDE = { dirs: ['claude-code', 'claude-code-2'], budget: 60_000, oracleTargets: [0.9, 0.93, 1] }

const fmt = (value: number, digits = 0): string => (Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '∞')
const pct = (part: number, whole: number): string => (whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)} %`)


// What --check replays as `recommended`: the preset with its JSON tool results kept as sent. The
// bound prices the original messages; stored without whitespace (tool_result_json_whitespace
// "strip") a view holds the same values in fewer tokens, below any original-content policy (at
// main 7ef682c, tau-bench #7-t0 cost 9,446 against the class (b) floor 9,604.8), so the check would
// compare unlike things.
const toCheckedRecommended = <T extends object>(recommended: T): T & { readonly tool_result_json_whitespace: 'keep' } => ({ ...recommended, tool_result_json_whitespace: 'keep' as const })

/** The bounds reported, weakest assumptions first. */
const BOUND_KINDS = ['basicB', 'basicA', 'runB', 'runA'] as const
type BoundKind = (typeof BOUND_KINDS)[number]
const BOUND_LABELS: Readonly<Record<BoundKind, string>> = {
  basicB: '(b) any excerpt',
  basicA: '(a) whole or head-truncated messages',
  runB: '(b) + compare\'s cache rule (reads from the previous view only)',
  runA: '(a) + compare\'s cache rule (reads from the previous view only)',
}

/** The four curves of one session (or pooled sessions) in one currency. */
export interface CurveSet {
  readonly basicA: CostCurve
  readonly basicB: CostCurve
  readonly runA: CostCurve
  readonly runB: CostCurve
}

/** Which curves bound each kind: a class (a) policy is a class (b) one, and compare's rule only adds a constraint. */
const CURVES_OF: Readonly<Record<BoundKind, ReadonlyArray<keyof CurveSet>>> = {
  basicB: ['basicB'],
  basicA: ['basicA', 'basicB'],
  runB: ['runB', 'basicB'],
  runA: ['runA', 'runB', 'basicA', 'basicB'],
}

/** The least cost of `count` facts under `kind`: the largest of its valid lower bounds. */
export const boundCost = (set: CurveSet, kind: BoundKind, count: number): number => Math.max(...CURVES_OF[kind].map((name) => minCostFor(set[name], count)))

/** The most facts within `cap` under `kind`: the smallest of the counts its curves allow. */
export const boundFacts = (set: CurveSet, kind: BoundKind, cap: number): number => Math.min(...CURVES_OF[kind].map((name) => maxFactsWithin(set[name], cap)))

/** One session's curves in relative units and in dollars. */
export interface SessionBounds {
  readonly relative: CurveSet
  readonly usd: CurveSet
}

const toCurveSet = (requests: ReadonlyArray<BoundRequest>, prices: TokenPrices, budget: number, countMessage: (message: Message) => number, countText: (text: string) => number): CurveSet => {
  const run = toRunPrices(requests, countMessage, countText, prices.cached / prices.uncached)
  return {
    basicA: toBasicCurve(requests, prices, 'wholeOrHead', budget),
    basicB: toBasicCurve(requests, prices, 'anyExcerpt', budget),
    runA: toCostCurve(requests, prices, (_request, index, at) => prices.uncached * run.wholeOrHead[at][index], capacityWithin(budget, 'wholeOrHead')),
    runB: toCostCurve(requests, prices, (_request, index, at) => prices.uncached * run.anyExcerpt[at][index], capacityWithin(budget, 'anyExcerpt')),
  }
}

/** The curves of one session (relative units and `usd`), each view within `budget` counted tokens (Infinity: no budget). */
export const toSessionBounds = (requests: ReadonlyArray<BoundRequest>, usd: TokenPrices, budget: number, countMessage: (message: Message) => number, countText: (text: string) => number): SessionBounds => ({
  relative: toCurveSet(requests, RELATIVE, budget, countMessage, countText),
  usd: toCurveSet(requests, usd, budget, countMessage, countText),
})

const joinSets = (sets: ReadonlyArray<CurveSet>): CurveSet => ({
  basicA: joinCurves(sets.map((set) => set.basicA)),
  basicB: joinCurves(sets.map((set) => set.basicB)),
  runA: joinCurves(sets.map((set) => set.runA)),
  runB: joinCurves(sets.map((set) => set.runB)),
})

/** Sessions pooled: the cheapest facts over all of them. */
export const joinSessionBounds = (sessions: ReadonlyArray<SessionBounds>): SessionBounds => ({
  relative: joinSets(sessions.map((item) => item.relative)),
  usd: joinSets(sessions.map((item) => item.usd)),
})

type PreparedSessionLike = import('../src/shell/cli/evaluate.js').PreparedSession

interface Measured {
  readonly needed_facts: number
  readonly recalled_facts: number
  readonly relative_cost: number
  readonly cost_usd: number
  readonly input_tokens: number
  readonly overflows: number
  readonly invalid_views: number
  readonly prefix_breaks: number
  readonly uncached_input_tokens: number
}

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const { readInput, prepareSessions, runSession, expandInputs } = await import('../src/shell/cli/evaluate.js')
  const { loadPriceTable, loadWindowTable } = await import('../src/shell/economics-data.js')
  const { makeProviderCounter, loadTokenizer } = await import('../src/shell/estimators.js')
  const { toSessionMetrics } = await import('../src/core/economics/metrics.js')
  const { presets } = await import('../src/core/presets.js')
  const check = argv.includes('--check')
  const at = (flag: string): string | null => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : null)
  const root = at('--root') ?? (existsSync('../shared/sessions') ? '../shared/sessions' : 'fixtures/sessions')
  const rowsFile = at('--rows')
  const noBudget = argv.includes('--no-budget')
  const oracleRatio = Number(at('--oracle-ratio') ?? '0.1')
  const oracle = argv.includes('--oracle')
  const oracleShare = Number(at('--oracle-share') ?? '0.999')
  const rows: unknown[] = []
  const prices = loadPriceTable()
  const windows = loadWindowTable()
  const countMessage = makeProviderCounter().count
  const tokenize = loadTokenizer()
  const memo = new Map<string, number>()
  const countText = (text: string): number => {
    const known = memo.get(text)
    if (known !== undefined) return known
    const tokens = tokenize(text)
    if (text.length < 4096) memo.set(text, tokens)
    return tokens
  }
  const out: string[] = []
  const print = (line = ''): void => void out.push(line)
  const failures: string[] = []

  // ---- tau-bench: cost-capped
  const tauDir = `${root}/${TAU.dir}`
  const tauOptions = { format: 'auto' as const, budget: { kind: 'budget' as const, tokens: TAU.budget }, summarizer: 'extractive' as const, usage: 'simulated' as const, model: TAU.model, prices, windows }
  const price = prices.models[TAU.model]
  const usd: TokenPrices = { uncached: price.input / 1e6, cached: price.cached_input / 1e6 }
  const sessions: Array<{ name: string; requests: BoundRequest[]; bounds: SessionBounds; measured?: { none: Measured; recommended: Measured }; plan: OraclePlan; session: PreparedSessionLike }> = []
  for (const path of expandInputs(existsSync(tauDir) ? [tauDir] : [])) {
    const loaded = readInput(path, 'auto', { model: TAU.model, windows })
    // peers are replayed as scripts/evaluation.mjs replays them: no notice reserve, so E is the budget
    const peerSessions = prepareSessions(path, loaded, { preset: null, file: null, settings: [['compaction_notice_token_reserve', 0]] }, tauOptions)
    for (const [at, session] of prepareSessions(path, loaded, { preset: toCheckedRecommended(presets.recommended), file: null, settings: [] }, tauOptions).entries()) {
      const peerSession = peerSessions[at]
      const requests = toBoundRequests(session.original, countMessage, countText)
      const bounds = toSessionBounds(requests, usd, noBudget ? Infinity : TAU.budget, countMessage, countText)
      const measured = check
        ? {
            none: toSessionMetrics(runSession(peerSession, tauOptions, undefined, {}, (history) => history), session.original, session.limit, session.price),
            recommended: toSessionMetrics(runSession(session, tauOptions), session.original, session.limit, session.price),
          }
        : undefined
      sessions.push({ name: session.name, requests, bounds, measured, plan: toOraclePlan(requests, toViewMessageText, countMessage), session: peerSession })
    }
  }
  if (sessions.length > 0) {
    const all = sessions.flatMap((item) => item.requests)
    const total = joinSessionBounds(sessions.map((item) => item.bounds))
    const needed = total.relative.basicB.needed
    print(`### tau-bench at ${fmt(TAU.budget)} (${TAU.model}), cost-capped: ${sessions.length} sessions, ${fmt(all.length)} requests, ${fmt(needed)} needed facts`)
    print()
    print(`Caps: \`recommended\` at d45b1be, ${fmt(TAU.capRelative)} relative units and $${TAU.capUsd.toFixed(4)} (${TAU.model}: input $${price.input}, cached $${price.cached_input} per million). Cells: least relative cost / least dollars.`)
    print()
    print('| bound | mandatory (no fact) | at 73 % | at 85 % | at 90 % | at 100 % | most recall within the relative cap | within the dollar cap |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|')
    for (const kind of BOUND_KINDS) {
      const cells = [0, ...TAU.recalls.map((recall) => factsFor(needed, recall))].map((count) => `${fmt(boundCost(total.relative, kind, count))} / $${boundCost(total.usd, kind, count).toFixed(4)}`)
      const most = { rel: boundFacts(total.relative, kind, TAU.capRelative), usd: boundFacts(total.usd, kind, TAU.capUsd) }
      print(`| ${BOUND_LABELS[kind]} | ${cells.join(' | ')} | ${pct(most.rel, needed)} (${most.rel}) | ${pct(most.usd, needed)} (${most.usd}) |`)
      rows.push({ scenario: 'tau', total: true, bound: kind, needed, costs: [0, ...TAU.recalls].map((recall) => boundCost(total.relative, kind, factsFor(needed, recall))), usd: [0, ...TAU.recalls].map((recall) => boundCost(total.usd, kind, factsFor(needed, recall))), most })
    }
    print()
    const mandatory = all.reduce((sum, request) => sum + request.mandatoryTokens, 0)
    const fresh = all.reduce((sum, request) => sum + request.freshTokens, 0)
    const limited = all.filter((request) => capacityWithin(TAU.budget, 'wholeOrHead')(request) < request.facts.length)
    const unfit = all.filter((request) => request.mandatoryTokens > TAU.budget).length
    print(`Mandatory tokens (system messages and the last two messages of every request): ${fmt(mandatory)}, of which never in the history before ${fmt(fresh)}. ${noBudget ? 'Views not held to the budget (--no-budget).' : `Every view within ${fmt(TAU.budget)} tokens (the bill is the count: no readings, scale 1, overhead 0): ${limited.length} requests where that leaves room for fewer than all needed facts (${limited.reduce((sum, request) => sum + request.facts.length - capacityWithin(TAU.budget, 'wholeOrHead')(request), 0)} facts out of reach of class (a)), ${unfit} whose mandatory part alone is over it.`}`)
    for (const item of sessions) rows.push({ scenario: 'tau', session: item.name, needed: item.bounds.relative.basicB.needed, costs: BOUND_KINDS.map((kind) => [0, ...TAU.recalls].map((recall) => boundCost(item.bounds.relative, kind, factsFor(item.bounds.relative.basicB.needed, recall)))) })
    if (check) {
      const sum = (pick: (measured: { none: Measured; recommended: Measured }) => number): number => sessions.reduce((total, item) => total + pick(item.measured!), 0)
      for (const item of sessions) {
        const measured = item.measured!
        const bound = item.bounds.relative.basicB.needed
        if (measured.none.needed_facts !== bound) failures.push(`${item.name}: compare needed_facts ${measured.none.needed_facts}, bound ${bound}`)
        // `recommended` keeps JSON records as handle-and-value forms (an excerpt of their values, not a
        // head): its floor is class (b)'s; the no-compaction views are whole messages, class (a).
        for (const [label, point, kind] of [['no compaction', measured.none, 'runA'], ['recommended', measured.recommended, 'runB']] as const) {
          const floor = boundCost(item.bounds.relative, kind, point.recalled_facts)
          const floorUsd = boundCost(item.bounds.usd, kind, point.recalled_facts)
          if (point.relative_cost + 1e-6 < floor || point.cost_usd + 1e-9 < floorUsd) failures.push(`${item.name}: ${label} ${point.relative_cost} / $${point.cost_usd} below the bound ${floor} / $${floorUsd}`)
        }
      }
      const fullViews = all.reduce((total, request) => total + request.historyTokens, 0)
      if (fullViews !== sum((m) => m.none.input_tokens)) failures.push(`full views: bound counts ${fullViews} tokens, compare's no-compaction input_tokens ${sum((m) => m.none.input_tokens)}`)
      const point = (label: string, pick: (m: { none: Measured; recommended: Measured }) => Measured, kind: 'runA' | 'runB'): string => {
        const recalled = sum((m) => pick(m).recalled_facts)
        return `${label} ${pct(recalled, needed)} at ${fmt(sum((m) => pick(m).relative_cost))} / $${sum((m) => pick(m).cost_usd).toFixed(4)} (bound ${kind === 'runA' ? '(a)' : '(b)'} with the cache rule at that recall, per session summed: ${fmt(sessions.reduce((t, item) => t + boundCost(item.bounds.relative, kind, pick(item.measured!).recalled_facts), 0))} / $${sessions.reduce((t, item) => t + boundCost(item.bounds.usd, kind, pick(item.measured!).recalled_facts), 0).toFixed(4)})`
      }
      print()
      print(`Check (\`--check\`, compare's provider model, per session): compare's needed facts ${fmt(sum((m) => m.none.needed_facts))} (bound ${fmt(needed)}); ${point('no compaction', (m) => m.none, 'runA')}; ${point('`recommended` (JSON whitespace kept)', (m) => m.recommended, 'runB')};  input tokens of the no-compaction views ${fmt(fullViews)} (compare: ${fmt(sum((m) => m.none.input_tokens))}).`)
    }
    if (oracle) {
      print()
      print(`An oracle of class (a) (\`toOracleKeeps\`: it knows every request's needed facts, keeps whole tool groups from when they appear to their last use, leaves lazily, stops serving the dearest units per fact to reach a target), measured by compare's own provider and cache model (\`runSession\` with the oracle's views as a peer), leaving cached reads priced at ${oracleRatio}:`)
      print()
      print('| target | recall | relative cost | cost (input) | overflows | invalid views | prefix breaks | uncached tokens | bound (a) with the cache rule at that recall |')
      print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
      for (const target of [0.85, 0.9, 1]) {
        const excluded = toOracleExclusions(sessions.map((item) => item.plan), target)
        const runs = sessions.map((item, index) => {
          const keeps = toOracleKeeps(item.requests, item.plan, excluded[index], oracleRatio, TAU.budget)
          return toSessionMetrics(
            runSession(item.session, tauOptions, undefined, {}, (history, _budget, request) => {
              if (history.length !== item.requests[request].history.length) throw new Error(`${item.name}: the replay's history differs from the recording's at request ${request}`)
              return history.filter((_, position) => keeps[request].has(position))
            }),
            item.session.original,
            item.session.limit,
            item.session.price,
          )
        })
        const sumOf = (pick: (m: Measured) => number): number => runs.reduce((sum, run) => sum + pick(run), 0)
        const recalled = sumOf((m) => m.recalled_facts)
        rows.push({ scenario: 'tau', oracle: target, recalled, relative_cost: sumOf((m) => m.relative_cost), cost_usd: sumOf((m) => m.cost_usd), overflows: sumOf((m) => m.overflows), invalid: sumOf((m) => m.invalid_views) })
        print(`| ${Math.round(target * 100)} % | ${pct(recalled, needed)} (${recalled}) | ${fmt(sumOf((m) => m.relative_cost))} | $${sumOf((m) => m.cost_usd).toFixed(4)} | ${sumOf((m) => m.overflows)} | ${sumOf((m) => m.invalid_views)} | ${sumOf((m) => m.prefix_breaks)} | ${fmt(sumOf((m) => m.uncached_input_tokens))} | ${fmt(boundCost(total.relative, 'runA', recalled))} / $${boundCost(total.usd, 'runA', recalled).toFixed(4)} |`)
      }
    }
    print()
  }

  // ---- Claude Code: budget-capped
  const claudeOptions = { format: 'auto' as const, budget: { kind: 'budget' as const, tokens: CLAUDE.budget }, summarizer: 'extractive' as const, usage: 'simulated' as const, model: null, prices, windows }
  const claudeRows: Array<{ session: string; fit: string; content: number; needed: number; a: number; b: number; unfit: number; requests: number; leastRoom: number; mostHeads: number; witnessOver: number }> = []
  const skipped: string[] = []
  const claudeOracle: Array<{ target: number; session: string; metrics: Measured }> = []
  const leftOutCost = { relative: 0, usd: 0 }
  const claudePlans: Array<{ name: string; requests: BoundRequest[]; peer: PreparedSessionLike; original: PreparedSessionLike; allowance: number[]; segments: Array<{ indices: number[]; plan: OraclePlan }> }> = []
  const claudeDirs = CLAUDE.dirs.map((dir) => `${root}/${dir}`).filter((dir) => existsSync(dir))
  for (const path of expandInputs(claudeDirs)) {
    const loaded = readInput(path, 'auto', { model: null, windows })
    const peerSessions = prepareSessions(path, loaded, { preset: null, file: null, settings: [['compaction_notice_token_reserve', 0]] }, claudeOptions)
    for (const [at, session] of prepareSessions(path, loaded, { preset: presets.recommended, file: null, settings: [] }, claudeOptions).entries()) {
      // The provider model's own fit of this session's readings (reading ~ scale x count + overhead,
      // fitProviderModel in src/core/economics/provider-model.ts): the fit the honest-budget peer of
      // scripts/evaluation.mjs converts the budget with, (B - overhead) / scale.
      const replay = runSession(session, claudeOptions, undefined, {}, (history) => history)
      const fit = replay.providerFit
      if (fit === null || fit.source === 'none') {
        skipped.push(`${session.name} (no readings)`)
        continue
      }
      if (fit.overhead >= CLAUDE.budget) {
        skipped.push(`${session.name} (infeasible: fitted overhead ${fmt(fit.overhead)} ≥ ${fmt(CLAUDE.budget)})`)
        // what it costs whatever a policy does (its views are the history), for the cost caps
        const left = toSessionMetrics(replay, session.original, session.limit, session.price)
        leftOutCost.relative += left.relative_cost
        leftOutCost.usd += left.cost_usd
        continue
      }
      const content = Math.floor((CLAUDE.budget - fit.overhead) / fit.scale)
      const requests = toBoundRequests(session.original, countMessage, countText)
      const bound = toBudgetBound(requests, content)
      const withFacts = requests.filter((request) => request.facts.length > 0)
      const leastRoom = Math.min(...withFacts.map((request) => content - request.mandatoryTokens))
      const witnesses = withFacts.map((request) => ({ room: content - request.mandatoryTokens, heads: toHeadWitness(request, countText) }))
      claudeRows.push({
        session: session.name,
        fit: `${fit.scale.toFixed(3)} × count + ${fmt(fit.overhead)}`,
        content,
        needed: bound.needed,
        a: bound.wholeOrHead,
        b: bound.anyExcerpt,
        unfit: bound.unfit,
        requests: requests.length,
        leastRoom,
        mostHeads: Math.max(0, ...witnesses.map((item) => item.heads)),
        witnessOver: witnesses.filter((item) => item.heads > item.room).length,
      })
      if (check) {
        const none = toSessionMetrics(replay, session.original, session.limit, session.price)
        if (none.needed_facts !== bound.needed) failures.push(`${session.name}: compare needed_facts ${none.needed_facts}, bound ${bound.needed}`)
      }
      if (oracle) {
        // the oracle with cut tool results, segment by segment (a set_messages or clear starts a new history)
        // each request's own allowance under compare's bill (its overhead, reading - what was sent,
        // as the never-compacting replay found it, + scale x the view's count <= the budget)
        if (replay.economics.length !== requests.length) throw new Error(`${session.name}: ${replay.economics.length} bills for ${requests.length} requests`)
        const allowance = replay.economics.map((economics) => Math.floor((oracleShare * (CLAUDE.budget - (economics?.overhead ?? fit.overhead))) / fit.scale))
        const segments = toSegments(requests).map((indices) => ({ indices, plan: toOraclePlan(indices.map((q) => requests[q]), toViewMessageText, countMessage, true) }))
        claudePlans.push({ name: session.name, requests, peer: peerSessions[at], original: session, allowance, segments })
      }
    }
  }
  for (const target of oracle ? CLAUDE.oracleTargets : []) {
    const excluded = toOracleExclusions(
      claudePlans.flatMap((item) => item.segments.map((segment) => segment.plan)),
      target,
    )
    let next = 0
    for (const item of claudePlans) {
      const keeps: Array<{ keep: ReadonlySet<number>; cuts: ReadonlyMap<number, number>; cut: number }> = []
      for (const segment of item.segments) {
        const part = segment.indices.map((q) => item.requests[q])
        const kept = toOracleKeeps(part, segment.plan, excluded[next], RELATIVE.cached, segment.indices.map((q) => item.allowance[q]))
        next += 1
        segment.indices.forEach((q, index) => (keeps[q] = { keep: kept[index], cuts: segment.plan.cuts, cut: item.requests[q].cut }))
      }
      const result = runSession(item.peer, claudeOptions, undefined, {}, (history, _budget, request) => {
        const chosen = keeps[request]
        if (history.length !== item.requests[request].history.length) throw new Error(`${item.name}: the replay's history differs from the recording's at request ${request}`)
        return history.flatMap((message, position) => (chosen.keep.has(position) ? [position < chosen.cut ? toOracleMessage(message, chosen.cuts.get(position)) : message] : []))
      })
      claudeOracle.push({ target, session: item.name, metrics: toSessionMetrics(result, item.original.original, item.original.limit, item.original.price) })
    }
  }
  if (claudeRows.length > 0) {
    print(`### Claude Code at ${fmt(CLAUDE.budget)}, budget-capped (views as billed: fitted scale × count + overhead ≤ ${fmt(CLAUDE.budget)})`)
    print()
    print('| session | requests | provider fit | content budget (counted tokens) | requests whose mandatory part alone does not fit | least room beside it (requests with facts) | cheapest heads of all of one request\'s facts, largest | requests where they do not fit | needed | (a) whole or head-truncated: most recalled | (b) any excerpt: most recalled |')
    print('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    for (const row of claudeRows) print(`| ${row.session} | ${row.requests} | ${row.fit} | ${fmt(row.content)} | ${row.unfit} | ${row.needed === 0 ? '-' : fmt(row.leastRoom)} | ${row.needed === 0 ? '-' : fmt(row.mostHeads)} | ${row.needed === 0 ? '-' : row.witnessOver} | ${fmt(row.needed)} | ${pct(row.a, row.needed)} (${row.a}) | ${pct(row.b, row.needed)} (${row.b}) |`)
    const total = claudeRows.reduce((sum, row) => ({ needed: sum.needed + row.needed, a: sum.a + row.a, b: sum.b + row.b, unfit: sum.unfit + row.unfit, requests: sum.requests + row.requests }), { needed: 0, a: 0, b: 0, unfit: 0, requests: 0 })
    print(`| **total** | ${total.requests} | | | ${total.unfit} | | | ${claudeRows.reduce((sum, row) => sum + row.witnessOver, 0)} | ${fmt(total.needed)} | ${pct(total.a, total.needed)} (${total.a}) | ${pct(total.b, total.needed)} (${total.b}) |`)
    print()
    if (skipped.length > 0) print(`Left out: ${skipped.join('; ')}.`)
    if (claudeOracle.length > 0) {
      print()
      print(`The class (a) oracle with tool results cut after the last fact they serve (\`toOraclePlan\` with heads), each view within ${oracleShare} × its request's allowance under compare's bill ((60,000 − the request's overhead) / scale), stopping to serve the dearest units per fact to reach a target (pooled over the sessions), replayed as a peer through compare's provider and cache model; the totals add the left-out sessions' cost (${fmt(leftOutCost.relative)} / $${leftOutCost.usd.toFixed(4)}, the same under every policy), as the caps include it:`)
      print()
      print('| target | session | recall | relative cost | cost (input) | overflows | invalid views | prefix breaks |')
      print('|---|---|---:|---:|---:|---:|---:|---:|')
      const rowOf = (target: number, label: string, m: Omit<Measured, 'input_tokens' | 'uncached_input_tokens'>): void =>
        print(`| ${Math.round(target * 100)} % | ${label} | ${pct(m.recalled_facts, m.needed_facts)} (${m.recalled_facts}/${m.needed_facts}) | ${fmt(m.relative_cost)} | $${m.cost_usd.toFixed(4)} | ${m.overflows} | ${m.invalid_views} | ${m.prefix_breaks} |`)
      for (const target of CLAUDE.oracleTargets) {
        const items = claudeOracle.filter((item) => item.target === target)
        for (const item of items) if (item.metrics.needed_facts > 0) rowOf(target, item.session, item.metrics)
        const add = (pick: (m: Measured) => number): number => items.reduce((sum, item) => sum + pick(item.metrics), 0)
        rowOf(target, '**total** (with the left-out cost)', { needed_facts: add((m) => m.needed_facts), recalled_facts: add((m) => m.recalled_facts), relative_cost: add((m) => m.relative_cost) + leftOutCost.relative, cost_usd: add((m) => m.cost_usd) + leftOutCost.usd, overflows: add((m) => m.overflows), invalid_views: add((m) => m.invalid_views), prefix_breaks: add((m) => m.prefix_breaks) })
      }
      rows.push({ scenario: 'claude-code', oracle: claudeOracle })
    }
    rows.push({ scenario: 'claude-code', sessions: claudeRows, total, skipped })
    print()
  }
  if (check) print(failures.length === 0 ? 'Check: every measured point lies on or above the bound; compare and the bound agree on the needed facts.' : `Check FAILED:\n${failures.join('\n')}`)
  process.stdout.write(`${out.join('\n')}\n`)
  if (rowsFile !== null) writeFileSync(rowsFile, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`)
  return failures.length === 0 ? 0 : 1
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`)
      process.exit(2)
    },
  )
}
