/**
 * The result of reducing one event: the next state, the view (request events only) and the
 * effects for the shell to run, in order.
 */
import type { Effect } from './effects.js'
import type { Message } from './messages/message.js'
import type { State } from './state.js'

/**
 * One reduction step. `view` is the message list to send (stripped of `_seq`) for a
 * `request_received` event (and, without its failed spill pointers, for the `spills_answered`
 * event of a request that spilled), `undefined` for every other event and for a request that
 * raised (its `raise_error` effect is then among `effects`).
 *
 * @example
 * const step: Step = makeStep({ config: DEFAULT_CONFIG, estimate: estimateOne })(makeInitialState(), { type: 'history_cleared' })
 * step.effects // => []
 */
export interface Step {
  readonly state: State
  readonly view: ReadonlyArray<Message> | undefined
  readonly effects: ReadonlyArray<Effect>
  /**
   * The view in the shape the event asked for (`request_received.shape`, `spills_answered.shape`):
   * converted, repaired and checked (docs/formats.md); absent without a shape, null when
   * `provider_rules: "refuse"` refused it (its `raise_error` effect is then among `effects`).
   */
  readonly output?: unknown
  /** With an `output` made under `shape.repair`: whether the repair changed the view (docs/formats.md); false otherwise. */
  readonly repaired?: boolean
}
