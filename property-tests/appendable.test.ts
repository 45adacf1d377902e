// Appendable lists (docs/architecture.md): every version keeps its contents whatever is appended to it or to
// any other version of its lineage (branches included), and reads like the plain array a model
// builds with copies: indexing, length, iteration, array methods, keys, JSON, equality.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { appendTo, isAppendable, lastOf, replaceLast, sliceFrom, toPlainArray } from '../src/core/messages/appendable.js'

const numRuns = Number(process.env.FC_NUM_RUNS ?? 100)

/** One operation on the version at `from` (an index into the versions made so far, modulo). */
type Op = { readonly kind: 'append'; readonly from: number; readonly items: ReadonlyArray<number> } | { readonly kind: 'replace'; readonly from: number; readonly item: number }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('append' as const), from: fc.nat(), items: fc.array(fc.integer(), { maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), from: fc.nat(), item: fc.integer() }) },
)

const expectSame = (list: ReadonlyArray<number>, model: ReadonlyArray<number>): void => {
  expect(list.length).toBe(model.length)
  for (let index = 0; index < model.length; index += 1) expect(list[index]).toBe(model[index])
  expect(list[model.length]).toBeUndefined()
  expect([...list]).toEqual(model)
  expect(list).toEqual(model)
  expect(Object.keys(list)).toEqual(Object.keys(model))
  expect(JSON.stringify(list)).toBe(JSON.stringify(model))
  expect(list.map((item) => item * 2)).toEqual(model.map((item) => item * 2))
  expect(list.slice(1)).toEqual(model.slice(1))
  expect(sliceFrom(list, 1)).toEqual(model.slice(1))
  expect(toPlainArray(list)).toEqual(model)
  expect(lastOf(list)).toBe(model[model.length - 1])
  expect(Array.isArray(list)).toBe(true)
}

describe('appendable lists', () => {
  it('every version equals its model after any sequence of appends and replacements on any version', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 5 }), fc.array(opArb, { maxLength: 30 }), (start, ops) => {
        const versions: Array<ReadonlyArray<number>> = [start]
        const models: Array<ReadonlyArray<number>> = [[...start]]
        for (const op of ops) {
          const from = op.from % versions.length
          if (op.kind === 'append') {
            versions.push(appendTo(versions[from], op.items))
            models.push([...models[from], ...op.items])
          } else if (models[from].length > 0) {
            versions.push(replaceLast(versions[from], op.item))
            models.push([...models[from].slice(0, -1), op.item])
          }
        }
        versions.forEach((version, index) => expectSame(version, models[index]))
      }),
      { numRuns },
    )
  })

  it('a version refuses every write and stays as it was', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { minLength: 1, maxLength: 5 }), fc.integer(), (items, item) => {
        const list = appendTo([], items) as number[]
        expect(isAppendable(list)).toBe(true)
        expect(() => list.push(item)).toThrow(TypeError)
        expect(() => {
          list[0] = item
        }).toThrow(TypeError)
        expect(() => list.pop()).toThrow(TypeError)
        expect(() => Object.freeze(list)).toThrow(TypeError)
        expectSame(list, items)
      }),
      { numRuns },
    )
  })
})
