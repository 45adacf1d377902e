/**
 * What the runtime offers beyond the Web-standard APIs, looked up on first use and never imported
 * statically, so the main entry bundles for browsers and edge workers (docs/runtimes.md): Node's
 * built-in modules through `process.getBuiltinModule` (Node >= 20.16, Deno, Bun), or, for an
 * asynchronous caller on an older Node, a dynamic `import()` the bundlers leave alone. Absent in
 * browsers and in workers without Node compatibility: the lookups then answer null.
 */

type BuiltinLoader = (id: string) => unknown
interface ProcessLike {
  readonly getBuiltinModule?: BuiltinLoader
  readonly versions?: { readonly node?: string }
}

const runtimeProcess = (): ProcessLike | undefined => (globalThis as { readonly process?: ProcessLike }).process

/**
 * The Node built-in module `id` (e.g. `'node:fs/promises'`) when the runtime has
 * `process.getBuiltinModule`, else null. Never throws.
 */
export const nodeBuiltin = <T>(id: string): T | null => {
  const host = runtimeProcess()
  const load = host?.getBuiltinModule
  if (typeof load !== 'function') return null
  try {
    return (load.call(host, id) as T | undefined) ?? null
  } catch {
    return null
  }
}

/**
 * `nodeBuiltin(id)`, or on a Node without `process.getBuiltinModule` (before 20.16) the module
 * `import(id)` gives; null where neither exists. The specifier is a variable and marked ignored,
 * so bundlers neither resolve nor warn about it.
 */
export const loadNodeBuiltin = async <T>(id: string): Promise<T | null> => {
  const found = nodeBuiltin<T>(id)
  if (found !== null) return found
  if (typeof runtimeProcess()?.versions?.node !== 'string') return null
  try {
    const specifier = id
    return (await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)) as T
  } catch {
    return null
  }
}
