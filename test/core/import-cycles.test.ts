// The import cycle check (scripts/check-import-cycles.mjs): src/ has no cycle beyond its allow-list,
// and on a folder of its own the check names a cycle made only of type-only imports and
// re-exports, and passes an acyclic one.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runScript } from '../support/run-script.js'

const check = (...args: string[]): { code: number; output: string } => runScript('scripts/check-import-cycles.mjs', ...args)

const folder = (files: Record<string, string>): string => {
  const dir = mkdtempSync(join(tmpdir(), 'cycles-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

describe('import cycle check', () => {
  it('passes on src/ with its allow-list', () => {
    expect(check()).toMatchObject({ code: 0 })
  })

  it('names a cycle of type-only imports and re-exports', () => {
    const dir = folder({
      'a.ts': "import type { B } from './b.js'\nexport type A = { b?: B }\n",
      'b.ts': "export type { C } from './c.js'\nexport type B = number\n",
      'c.ts': "import type { A } from './a.js'\nexport type C = A\n",
    })
    const { code, output } = check(dir)
    expect(code).toBe(1)
    expect(output).toMatch(/new import cycle: \S*a\.ts -> \S*b\.ts -> \S*c\.ts -> \S*a\.ts/)
    expect(output).toMatch(/npm run check:imports/)
  })

  it('passes an acyclic folder', () => {
    const dir = folder({
      'a.ts': "import type { B } from './b.js'\nexport type A = { b?: B }\n",
      'b.ts': 'export type B = number\n',
    })
    expect(check(dir)).toMatchObject({ code: 0 })
  })
})
