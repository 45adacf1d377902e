// Every named type a key of Config uses (src/core/config.ts) is exported by the package entry
// (src/index.ts -> src/core/index.ts), so a user can type a configuration value: found missing for
// TargetBasis, ToolResultTruncation and ProviderRulesMode.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const BUILT_IN = new Set(['Readonly', 'ReadonlyArray', 'Record', 'Array'])

/** The named types the keys of Config use (src/core/config.ts). */
const namedValueTypes = (): Set<string> => {
  const config = readFileSync('src/core/config.ts', 'utf8')
  const body = /export interface Config \{([\s\S]*?)\n\}/.exec(config)?.[1] ?? ''
  const fields = [...body.matchAll(/^\s+readonly \w+\??: (.+)$/gm)].map((match) => match[1])
  expect(fields.length).toBeGreaterThan(50)
  return new Set(fields.flatMap((type) => type.match(/\b[A-Z]\w*/g) ?? []).filter((name) => !BUILT_IN.has(name)))
}

describe('Config value types', () => {
  it('are exported from the package entry', () => {
    const named = namedValueTypes()
    expect(named.size).toBeGreaterThan(5)
    const entry = readFileSync('src/core/index.ts', 'utf8')
    const exported = new Set([...entry.matchAll(/export (?:type )?\{([^}]*)\} from '\.\/config\.js'/g)].flatMap((match) => match[1].split(',').map((name) => name.trim().replace(/^type /, ''))))
    expect([...named].filter((name) => !exported.has(name))).toEqual([])
  })

  // docs/configuration.md says the test keeps its list complete: JsonProjection was missing from it
  it('are listed in docs/configuration.md', () => {
    const docs = readFileSync('docs/configuration.md', 'utf8')
    const list = /so a value can be typed before it goes into a configuration:([\s\S]*?)\(`import type/.exec(docs)?.[1] ?? ''
    const listed = new Set([...list.matchAll(/`(\w+)`/g)].map((match) => match[1]))
    expect(listed.size).toBeGreaterThan(5)
    expect([...namedValueTypes()].filter((name) => !listed.has(name))).toEqual([])
  })
})
