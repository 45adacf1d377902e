// The conformance cases of fixtures/conformance: every output line must match (docs/conformance.md).
import { describe, expect, it } from 'vitest'
import { listCases, runCase } from './support/conformance.js'

// Every case in the folder runs; the family lists only check that none went missing.
const GENERATED_FAMILIES = ['progressive', 'mild', 'knobs', 'factory', 'resume', 'provider', 'meter', 'trb', 'replay', 'cal', 'summary', 'opengroup']
const familyOf = (name: string): string => name.replace(/-(extra-s\d+-)?\d+$/, '')

describe('conformance: generated', () => {
  const cases = listCases('generated')
  it('finds the cases of every family', () => {
    expect(cases.length).toBeGreaterThan(50)
    expect([...new Set(cases.map(familyOf))].sort()).toEqual([...GENERATED_FAMILIES].sort())
  })
  it.each(cases)('%s', (name) => {
    expect(runCase('generated', name)).toEqual([])
  })
})

describe('conformance: sessions', () => {
  const cases = listCases('sessions')
  it('finds the cases', () => expect(cases.length).toBeGreaterThan(40))
  it.each(cases)('%s', (name) => {
    expect(runCase('sessions', name)).toEqual([])
  })
})
