/**
 * A mutable copy of a view: views hand out frozen messages shared with the manager; this copies
 * them (JSON values only) so a caller can change them, e.g. to set its own `cache_control`.
 */

/**
 * `T` with every `readonly` removed, at every level (arrays included).
 *
 * @example
 * const copy: Mutable<{ readonly a: ReadonlyArray<{ readonly b: number }> }> = { a: [{ b: 1 }] }
 */
export type Mutable<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyArray<infer E>
    ? Array<Mutable<E>>
    : T extends object
      ? { -readonly [K in keyof T]: Mutable<T[K]> }
      : T

const copyValue = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(copyValue)
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value)) out[key] = copyValue(inner)
    return out
  }
  return value
}

/**
 * A deep, unfrozen copy of a view (or of any JSON value): new arrays and objects all the way
 * down, typed mutable. O(size of the view). Use it before changing a message of a view, which
 * the manager shares frozen (changing one in place throws a `TypeError`).
 *
 * @example
 * const frozen: { readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string }> } = Object.freeze({ messages: Object.freeze([Object.freeze({ role: 'user', content: 'hi' })]) })
 * const view = toMutableView(frozen)
 * view.messages[0].content = 'changed' // the copy is not frozen; frozen is unchanged
 */
export const toMutableView = <V>(view: V): Mutable<V> => copyValue(view) as Mutable<V>
