// The CLI's libraries stay out of a library install: they are development dependencies, and only
// src/shell/cli/libraries.ts (which the build replaces by a re-export of the bundle in
// dist/vendor) names them; when dist/ is built, the bundle exports what the CLI uses.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as libraries from '../../../src/shell/cli/libraries.js'

const CLI_LIBRARIES = ['commander', 'cli-table3', 'cli-progress']
const root = process.cwd()
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []))

describe('the CLI libraries', () => {
  it('are development dependencies, not dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> }
    for (const name of CLI_LIBRARIES) {
      expect(manifest.dependencies[name], name).toBeUndefined()
      expect(manifest.devDependencies[name], name).toMatch(/^\d+\.\d+\.\d+$/)
    }
  })

  it('are imported by package name only in src/shell/cli/libraries.ts', () => {
    const importing = sources(join(root, 'src')).filter((file) => CLI_LIBRARIES.some((name) => new RegExp(`(from|import\\(|require\\()\\s*['"\`]${name}['"\`]`).test(readFileSync(file, 'utf8'))))
    expect(importing.map((file) => relative(root, file))).toEqual(['src/shell/cli/libraries.ts'])
  })

  it.runIf(existsSync(join(root, 'dist/vendor/cli-libraries.js')))('are bundled into dist/vendor with the same exports and their licences', async () => {
    const compiled = readFileSync(join(root, 'dist/shell/cli/libraries.js'), 'utf8')
    expect(compiled).toContain("from '../../vendor/cli-libraries.js'")
    const bundled = (await import(join(root, 'dist/shell/cli/libraries.js'))) as Record<string, unknown>
    expect(Object.keys(bundled).sort()).toEqual(Object.keys(libraries).sort())
    const licences = readFileSync(join(root, 'dist/vendor/cli-libraries.LICENSES.txt'), 'utf8')
    for (const name of CLI_LIBRARIES) expect(licences).toMatch(new RegExp(`^${name}@\\d+\\.\\d+\\.\\d+ \\(MIT\\)$`, 'm'))
  })
})
