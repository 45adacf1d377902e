// The @example check (scripts/check-examples.mjs) on a small project of its own: an example that
// compiles and whose `// =>` comment is true passes; one that uses a name the package does not
// export, one with a type error and one whose result comment is false each fail, named by source
// file, line and export, and so does a public export without an example. (npm test runs the check
// itself on src/.)
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runScript } from '../support/run-script.js'

const project = (example: string): string => {
  const root = mkdtempSync(join(tmpdir(), 'examples-'))
  mkdirSync(join(root, 'src'))
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'context-simple', type: 'module', exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } } }))
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, types: ['node'], typeRoots: [resolve('node_modules/@types')] },
    }),
  )
  writeFileSync(join(root, 'src/index.ts'), "export { double } from './math.js'\n")
  writeFileSync(
    join(root, 'src/math.ts'),
    ['/**', ' * Twice `n`.', ' *', ' * @example', ...example.split('\n').map((line) => ` * ${line}`), ' */', 'export const double = (n: number): number => n * 2', ''].join('\n'),
  )
  return root
}

const check = (root: string): { code: number; output: string } => runScript('scripts/check-examples.mjs', '--root', root)

describe('@example check', () => {
  it('passes an example that compiles and whose result comment is true', () => {
    const { code, output } = check(project('double(2) // => 4\nconst six: number = double(3)'))
    expect(code).toBe(0)
    expect(output).toMatch(/1 of 1 examples compile, 1 run, 1 result comments true/)
  })

  it('rejects a public export without an example', () => {
    const root = project('double(2) // => 4')
    writeFileSync(join(root, 'src/index.ts'), "export { double } from './math.js'\n/** Half of `n`. */\nexport const half = (n: number): number => n / 2\n")
    const { code, output } = check(root)
    expect(code).toBe(1)
    expect(output).toMatch(/src\/index\.ts:3: the public export half has no @example/)
  })

  it.each([
    ['double(missing) // => 4', /src\/math\.ts:5: the @example of double does not compile: TS2304 Cannot find name 'missing'/],
    ["double('2')", /src\/math\.ts:5: the @example of double does not compile: TS2345/],
    ['const a = 1\ndouble(a) // => 3', /src\/math\.ts:6: double\(a\) is 2, the example says 3/],
  ])('rejects %s', (example, pattern) => {
    const { code, output } = check(project(example))
    expect(code).toBe(1)
    expect(output).toMatch(pattern)
    expect(output).toMatch(/npm run check:examples/)
  })
})
