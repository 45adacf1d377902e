/**
 * The core's private immer instance: mutation-style updates with structural sharing. Library code
 * never touches immer's global settings (only the Map/Set plugin is loaded). Auto-freeze is off
 * on this instance: deep-freezing every produced state made `add_message` cost ~1 ms at 10,000
 * messages (`npm run bench`); immutability is kept by construction (reducers never mutate their
 * inputs, and the shell hands out copies).
 */
import { enableMapSet, Immer } from 'immer'

enableMapSet()

const immer = new Immer({ autoFreeze: false })

/**
 * `produce` of the core's own immer instance: `update(state, (draft) => { ... })` returns the
 * next state, sharing every untouched part and never letting a draft escape.
 *
 * @example
 * update({ count: 1 }, (draft) => { draft.count += 1 }) // => { count: 2 }
 */
export const update: Immer['produce'] = immer.produce
