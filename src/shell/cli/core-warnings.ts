/**
 * The warnings the core logged while replaying (`log` effects of level `warning`: an unparseable
 * compact_clear_at_least, the calibrated meter's overhead over E, docs/contract.md 17.13, an
 * over-budget view, ...), tallied by message and printed on stderr by `replay`, `report` and
 * `compare`: each distinct message once, with its count (and, for `compare`, the runs it came
 * from), at most `WARNING_LINES` of them, then one line for the rest.
 */
import type { Effect } from '../../core/effects.js'
import { countNoun } from '../count-noun.js'

/** How many distinct warnings are printed before the line that counts the rest. */
export const WARNING_LINES = 10

/**
 * One distinct warning message: how many times it was logged and the runs it was logged in
 * (`compare`'s `configuration · session`, in the order first met; empty when not tracked).
 *
 * @example
 * const tally: WarningTally = { count: 2, runs: ['recommended · short.jsonl'] }
 */
export interface WarningTally {
  count: number
  readonly runs: string[]
}

/**
 * The warning messages of `logs` with how many times each was logged, in the order first met.
 *
 * @example
 * countWarningLogs([{ type: 'log', level: 'warning', message: 'a' }, { type: 'log', level: 'info', message: 'b' }, { type: 'log', level: 'warning', message: 'a' }]) // => [['a', 2]]
 */
export const countWarningLogs = (logs: ReadonlyArray<Effect>): Array<[string, number]> => {
  const counts = new Map<string, number>()
  for (const log of logs) if (log.type === 'log' && log.level === 'warning') counts.set(log.message, (counts.get(log.message) ?? 0) + 1)
  return [...counts]
}

/**
 * Add `count` occurrences of `message`, logged in `run` (null: runs not tracked), to `tally`
 * (mutated; messages keep the order first met).
 *
 * @example
 * const tally = new Map<string, WarningTally>()
 * addWarning(tally, 'a', 2, 'recommended · short.jsonl')
 * tally.get('a') // => { count: 2, runs: ['recommended · short.jsonl'] }
 */
export const addWarning = (tally: Map<string, WarningTally>, message: string, count: number, run: string | null): void => {
  const entry = tally.get(message) ?? { count: 0, runs: [] }
  entry.count += count
  if (run !== null && !entry.runs.includes(run)) entry.runs.push(run)
  tally.set(message, entry)
}

/** ` (N times)`, with the run (or the number of runs and the first) when tracked; '' for one time in no tracked run. */
const toSuffix = ({ count, runs }: WarningTally): string => {
  const times = count > 1 ? `${count} times` : ''
  const where = runs.length === 0 ? '' : runs.length === 1 ? runs[0] : `in ${runs.length} runs, the first ${runs[0]}`
  const parts = [times, where].filter((part) => part !== '')
  return parts.length === 0 ? '' : ` (${parts.join(runs.length === 1 ? ', ' : ' ')})`
}

/**
 * The stderr lines of `tally`: `warning: MESSAGE` with its suffix for the first `WARNING_LINES`
 * distinct messages, then `warning: … and N more distinct warnings` when there are more.
 *
 * @example
 * warningTallyLines(new Map([['a', { count: 2, runs: [] }]])) // => ['warning: a (2 times)\n']
 * warningTallyLines(new Map([['a', { count: 1, runs: ['recommended · short.jsonl'] }]])) // => ['warning: a (recommended · short.jsonl)\n']
 */
export const warningTallyLines = (tally: ReadonlyMap<string, WarningTally>): string[] => {
  const shown = [...tally].slice(0, WARNING_LINES)
  const lines = shown.map(([message, entry]) => `warning: ${message}${toSuffix(entry)}\n`)
  if (tally.size > shown.length) lines.push(`warning: … and ${countNoun(tally.size - shown.length, 'more distinct warning')}\n`)
  return lines
}
