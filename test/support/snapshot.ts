// Helpers for the snapshot hand-over tests (unit and property): the core dependencies of a
// recording, and a state passed through a snapshot, a JSON round trip and a restore.
import * as E from 'fp-ts/lib/Either.js'
import { decodeConfig } from '../../src/core/codecs.js'
import type { CoreDeps } from '../../src/core/deps.js'
import { makeCachedEstimator } from '../../src/core/meter/estimate.js'
import type { Recording } from '../../src/core/replay/recording.js'
import { decodeSnapshot, toSnapshot } from '../../src/core/snapshot/codec.js'
import type { State } from '../../src/core/state.js'

/** Fresh core dependencies for `recording` (its config decoded; throws the ConfigError). */
export const depsOf = (recording: Recording): CoreDeps => {
  const decoded = decodeConfig(recording.config)
  if (E.isLeft(decoded)) throw decoded.left
  return { config: decoded.right.config, estimate: makeCachedEstimator() }
}

/** `state` after toSnapshot, JSON.stringify, JSON.parse and decodeSnapshot (throws the SnapshotError). */
export const throughJson = (deps: CoreDeps) => (state: State): State => {
  const restored = decodeSnapshot(JSON.parse(JSON.stringify(toSnapshot(deps.config, state))))
  if (E.isLeft(restored)) throw restored.left
  if (JSON.stringify(restored.right.config) !== JSON.stringify(deps.config)) throw new Error('the configuration changed through the snapshot')
  return restored.right.state
}
