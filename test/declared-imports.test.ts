// Every package the repository's code imports is one package.json declares (dependencies,
// devDependencies or peerDependencies), the package itself or a Node built-in: in src/ (code and
// the doc comments' @example imports, which npm test compiles), examples/, the tests, scripts/,
// bench/ and bin/. A package that only resolves because npm hoisted it out of another one
// (`@openai/agents-openai`, which `@openai/agents` depends on and re-exports) compiles here and
// fails for a user whose package manager does not hoist (pnpm) or once the dependency moves.
import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = process.cwd()
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; peerDependencies?: Record<string, string> }
const declared = new Set([manifest.name, ...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})])
const FOLDERS = ['src', 'examples', 'test', 'property-tests', 'scripts', 'bench', 'bin']

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? (entry.name === 'node_modules' ? [] : sources(join(dir, entry.name))) : /\.(ts|mts|mjs|js)$/.test(entry.name) ? [join(dir, entry.name)] : [],
  )

/** The bare specifiers (package names, `node:` modules) of a file's import/export-from lines (also inside doc comments, after ` * `) and dynamic imports. */
const specifiers = (text: string): string[] => [
  ...[...text.matchAll(/^[ \t]*(?:\*[ \t]*)?(?:import|export)\b[^'"\n]*?\bfrom[ \t]+['"]([^'"]+)['"]/gm)].map((m) => m[1]),
  ...[...text.matchAll(/^[ \t]*(?:\*[ \t]*)?import[ \t]+['"]([^'"]+)['"]/gm)].map((m) => m[1]),
  ...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]),
].filter((spec) => /^(node:|@[\w.-]+\/)?[\w][\w.-]*(\/[\w./-]*)?$/.test(spec) && !spec.startsWith('.'))

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. */
const packageOf = (spec: string): string => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/')

describe('imported packages', () => {
  it('are declared in package.json, the package itself or Node built-ins', () => {
    const undeclared: string[] = []
    let seen = 0
    for (const folder of FOLDERS) {
      for (const file of sources(join(root, folder))) {
        for (const spec of specifiers(readFileSync(file, 'utf8'))) {
          seen += 1
          const name = packageOf(spec)
          if (spec.startsWith('node:') || builtinModules.includes(name) || declared.has(name)) continue
          undeclared.push(`${relative(root, file)}: ${spec}`)
        }
      }
    }
    expect(seen).toBeGreaterThan(500)
    expect(undeclared).toEqual([])
  })
})
