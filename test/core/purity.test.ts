// The core purity check (scripts/check-core-purity.mjs): clean on src/core, and it catches each
// kind of violation the design forbids.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runScript } from '../support/run-script.js'

const check = (...args: string[]): { code: number; output: string } => runScript('scripts/check-core-purity.mjs', ...args)

describe('core purity check', () => {
  it('passes on src/core', () => {
    expect(check(resolve(process.cwd(), 'src/core'))).toMatchObject({ code: 0 })
  })

  it.each([
    ["import { readFileSync } from 'node:fs'", /imports the Node built-in node:fs/],
    ["import { createHash } from 'crypto'", /imports the Node built-in crypto/],
    ["import mitt from 'mitt'", /imports mitt/],
    ["import { ContextManager } from '../shell/context-manager.js'", /from outside src\/core/],
    ["import type { HookBus } from '../shell/hooks.js'", /from outside src\/core/],
    ["export type { Logger } from '../shell/runner.js'", /from outside src\/core/],
    ["export type Bus = import('../shell/hooks.js').HookBus", /from outside src\/core/],
    ["import { ContextManager } from 'context-simple'", /the package itself/],
    ['export const now = () => Date.now()', /reads the clock/],
    ['export const stamp = () => new Date().toISOString()', /reads the clock/],
    ['export const id = () => Math.random()', /randomness/],
    ['export const home = () => process.env.HOME', /environment/],
    ["export const say = () => console.log('x')", /logs directly/],
    ['export const later = (f: () => void) => setTimeout(f, 1)', /schedules work/],
  ])('rejects %s', (line, pattern) => {
    const root = mkdtempSync(join(tmpdir(), 'purity-'))
    const core = join(root, 'core')
    mkdirSync(core)
    writeFileSync(join(core, 'bad.ts'), `// a comment mentioning Date.now() is fine\n${line}\n`)
    const { code, output } = check(core)
    expect(code).toBe(1)
    expect(output).toMatch(pattern)
    expect(output).not.toMatch(/bad\.ts:1:/)
  })
})
