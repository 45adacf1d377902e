/**
 * What a reducer depends on besides state and event: plain configuration and pure functions only.
 */
import type { Config } from './config.js'
import type { TokenEstimator } from './meter/estimate.js'
import type { MessageFormat } from './formats/carrier.js'

export type { TokenEstimator }

/**
 * Core dependencies: the resolved configuration and the token estimator. Both are fixed for the
 * life of a manager; the estimator must be pure (it may memoize per message object) and returns
 * estimated tokens per message (SPEC 5).
 *
 * @example
 * const deps: CoreDeps = { config: DEFAULT_CONFIG, estimate: makeCachedEstimator() }
 */
export interface CoreDeps {
  readonly config: Config
  readonly estimate: TokenEstimator
  /**
   * The format of added messages (docs/formats.md). Absent or `contract`: the contract shape,
   * stored as given. A provider format: each added message is stored as its contract pieces
   * (`expandMessage`), and `makeStep` estimates pieces by their provider-ready form.
   */
  readonly format?: MessageFormat
}
