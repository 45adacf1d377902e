// The main entry is runtime-neutral (docs/runtimes.md): esbuild bundles src/index.ts for the
// browser with no externals, and its metafile lists every module reached; none may be a Node
// built-in. The core alone bundles the same way; the `context-simple/node` entry does reach Node
// built-ins, which shows the check can fail.
import { readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { resolve } from 'node:path'
import { build, type Metafile } from 'esbuild'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]))

/** Bundles `entry` for the browser in memory; answers the esbuild errors and the Node built-ins the bundle reaches (with who imports them). */
const bundle = async (entry: string): Promise<{ readonly errors: string[]; readonly nodeImports: string[]; readonly inputs: number; readonly packages: string[] }> => {
  const result = await build({
    entryPoints: [resolve(root, entry)],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  }).catch((error: { errors?: Array<{ text: string; location?: { file: string } | null }> }) => ({ failure: error }))
  if ('failure' in result) {
    const errors = (result.failure.errors ?? []).map((error) => `${error.location?.file ?? '?'}: ${error.text}`)
    return { errors, nodeImports: errors.filter((text) => /node:|built into node/.test(text)), inputs: 0, packages: [] }
  }
  const metafile = result.metafile as Metafile
  const nodeImports = Object.entries(metafile.inputs).flatMap(([file, input]) =>
    input.imports.filter((item) => builtins.has(item.path) || item.path.startsWith('node:')).map((item) => `${file} imports ${item.path}`),
  )
  // the packages bundled: node_modules/<name>/ or node_modules/@scope/<name>/
  const packages = new Set(Object.keys(metafile.inputs).flatMap((file) => file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1] ?? []))
  return { errors: [], nodeImports, inputs: Object.keys(metafile.inputs).length, packages: [...packages].sort() }
}

describe('runtime-neutral entries (esbuild --platform=browser --bundle, no externals)', () => {
  it('the main entry reaches no Node built-in', async () => {
    const main = await bundle('src/index.ts')
    expect(main.errors).toEqual([])
    expect(main.nodeImports).toEqual([])
    expect(main.inputs).toBeGreaterThan(50)
    // only the library's own dependencies: no SDK, framework or CLI library is pulled in
    const dependencies = Object.keys((JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies)
    expect(main.packages.filter((name) => !dependencies.includes(name))).toEqual([])
  })

  it('the pure core reaches no Node built-in either', async () => {
    const core = await bundle('src/core/index.ts')
    expect(core.errors).toEqual([])
    expect(core.nodeImports).toEqual([])
  })

  it('the context-simple/node entry does (the check sees Node built-ins)', async () => {
    const node = await bundle('src/node.ts')
    expect(node.nodeImports.length).toBeGreaterThan(0)
    expect(node.nodeImports.join('\n')).toMatch(/node:fs/)
  })
})
