import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { appendTo, isAppendable, lastOf, replaceLast, sliceFrom, toPlainArray } from '../../../src/core/messages/appendable.js'

describe('appendTo', () => {
  it('leaves the list it appends to unchanged, and returns it for no items', () => {
    const plain = [1, 2]
    const one = appendTo(plain, [3])
    expect(plain).toEqual([1, 2])
    expect(one).toEqual([1, 2, 3])
    expect(appendTo(one, [])).toBe(one)
  })

  it('a branch (an append to an older version) leaves the newer version alone', () => {
    const base = appendTo([], ['a'])
    const left = appendTo(base, ['b'])
    const right = appendTo(base, ['c'])
    const leftMore = appendTo(left, ['d'])
    expect(base).toEqual(['a'])
    expect(left).toEqual(['a', 'b'])
    expect(right).toEqual(['a', 'c'])
    expect(leftMore).toEqual(['a', 'b', 'd'])
  })

  it('reads as an array: Array.isArray, for…of, spread, concat, JSON, find', () => {
    const list = appendTo([{ id: 1 }], [{ id: 2 }])
    expect(Array.isArray(list)).toBe(true)
    expect([...list].map((item) => item.id)).toEqual([1, 2])
    expect(list.concat([{ id: 3 }]).length).toBe(3)
    expect(JSON.parse(JSON.stringify(list))).toEqual([{ id: 1 }, { id: 2 }])
    expect(list.find((item) => item.id === 2)).toBe(list[1])
    expect('1' in list).toBe(true)
    expect('2' in list).toBe(false)
  })

  it('prints its items with util.inspect / console.log (which format a proxy\'s target)', () => {
    const list = appendTo([{ id: 1 }], [{ id: 2 }])
    expect(inspect(list)).toBe(inspect([{ id: 1 }, { id: 2 }]))
    expect(inspect({ history: list })).toBe(inspect({ history: [{ id: 1 }, { id: 2 }] }))
    // Nested views keep counting the depth as plain arrays do.
    const nested = appendTo([], [{ x: appendTo([], [{ a: { b: { c: 1 } } }]) }])
    const plain = [{ x: [{ a: { b: { c: 1 } } }] }]
    expect(inspect(nested)).toBe(inspect(plain))
    expect(inspect({ s: { t: nested } }, { depth: 1 })).toBe(inspect({ s: { t: plain } }, { depth: 1 }))
  })

  it('throws a TypeError on writes, naming what to do instead', () => {
    const list = appendTo([], [1]) as number[]
    expect(() => list.push(2)).toThrow(/immutable; copy it/)
    expect(list).toEqual([1])
  })
})

describe('toPlainArray, sliceFrom, lastOf, replaceLast', () => {
  it('toPlainArray gives a cloneable array, the same one for the same version', () => {
    const list = appendTo([], [1, 2])
    expect(() => structuredClone(list)).toThrow()
    const plain = toPlainArray(list)
    expect(isAppendable(plain)).toBe(false)
    expect(structuredClone(plain)).toEqual([1, 2])
    expect(toPlainArray(list)).toBe(plain)
    expect(Object.isFrozen(plain)).toBe(true)
    const array = [1]
    expect(toPlainArray(array)).toBe(array)
  })

  it('sliceFrom copies the tail; lastOf reads the last item; replaceLast keeps the old version', () => {
    const list = appendTo([1, 2], [3, 4])
    expect(sliceFrom(list, 2)).toEqual([3, 4])
    expect(sliceFrom([1, 2, 3], 1)).toEqual([2, 3])
    const older = appendTo(appendTo([1], [2]), [])
    appendTo(older, [3])
    expect(sliceFrom(older, -1)).toEqual([2])
    expect(sliceFrom(older, 5)).toEqual([])
    expect(sliceFrom(older, -0.5)).toEqual([1, 2].slice(-0.5))
    expect(lastOf(list)).toBe(4)
    expect(lastOf(appendTo([], []))).toBeUndefined()
    const sibling = replaceLast(list, 8)
    const fromList = appendTo(list, [5])
    const fromSibling = appendTo(sibling, [6])
    expect([list, sibling, fromList, fromSibling].map((version) => [...version])).toEqual([
      [1, 2, 3, 4],
      [1, 2, 3, 8],
      [1, 2, 3, 4, 5],
      [1, 2, 3, 8, 6],
    ])
    const replaced = replaceLast(list, 9)
    expect(replaced).toEqual([1, 2, 3, 9])
    expect(list).toEqual([1, 2, 3, 4])
    expect(appendTo(replaced, [5])).toEqual([1, 2, 3, 9, 5])
  })
})
