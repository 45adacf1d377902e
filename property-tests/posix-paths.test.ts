// The spill writers' POSIX path operations, used where the runtime has no node:path (browsers,
// edge workers): resolve, dirname and basename agree with Node's path.posix on random paths made
// of ordinary names, '.', '..', empty segments and repeated or trailing slashes.
import { posix } from 'node:path'
import fc from 'fast-check'
import { describe, it } from 'vitest'
import { POSIX_PATHS } from '../src/shell/spill-fs.js'
import { runProperty } from './arbitraries.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 200)
const segment = fc.constantFrom('a', 'b', 'spill', 'x.txt', '.', '..', '', '.hidden', 'é😀', 'tool-result-000001-0123456789abcdef.txt')
const path = fc.tuple(fc.boolean(), fc.array(segment, { maxLength: 6 }), fc.boolean()).map(([absolute, parts, trailing]) => `${absolute ? '/' : ''}${parts.join('/')}${trailing ? '/' : ''}`)

describe('POSIX path operations (spill writers without node:path)', () => {
  it('agree with path.posix', () => {
    const cwd = process.cwd()
    runProperty(
      'posix-paths',
      fc.property(fc.array(path, { minLength: 1, maxLength: 3 }), (paths) => {
        const expected = posix.resolve(cwd, ...paths)
        const actual = POSIX_PATHS.resolve(...paths)
        if (actual !== expected) throw new Error(`resolve(${JSON.stringify(paths)}) = ${actual}, path.posix: ${expected}`)
        const last = paths[paths.length - 1]
        if (last !== '' && POSIX_PATHS.dirname(last) !== posix.dirname(last)) throw new Error(`dirname(${JSON.stringify(last)}) = ${POSIX_PATHS.dirname(last)}, path.posix: ${posix.dirname(last)}`)
        if (POSIX_PATHS.basename(last) !== posix.basename(last)) throw new Error(`basename(${JSON.stringify(last)}) = ${POSIX_PATHS.basename(last)}, path.posix: ${posix.basename(last)}`)
      }),
      numRuns,
    )
  })
})
