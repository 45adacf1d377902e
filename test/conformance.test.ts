// The conformance cases of fixtures/conformance: every output line must match (docs/conformance.md).
import { describe, expect, it } from 'vitest'
import { listCases, runCase } from './support/conformance.js'

const GENERATED = /^(progressive|mild|knobs|factory|resume|provider|meter|trb|replay|cal|summary)-/
const SESSIONS = /^(cc-short|cc-tool-heavy|cc-4d5611e5|cc-4d5611e5-hybrid|tau-\d+-t\d+)$/

describe('conformance: generated', () => {
  const cases = listCases('generated', GENERATED)
  it('finds the cases', () => expect(cases.length).toBeGreaterThan(50))
  it.each(cases)('%s', (name) => {
    expect(runCase('generated', name)).toEqual([])
  })
})

describe('conformance: sessions', () => {
  const cases = listCases('sessions', SESSIONS)
  it('finds the cases', () => expect(cases.length).toBeGreaterThan(40))
  it.each(cases)('%s', (name) => {
    expect(runCase('sessions', name)).toEqual([])
  })
})
