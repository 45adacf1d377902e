// Every named type a key of Config uses (src/core/config.ts) is exported by the package entry
// (src/index.ts -> src/core/index.ts), so a user can type a configuration value: found missing for
// TargetBasis, ToolResultTruncation and ProviderRulesMode.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const BUILT_IN = new Set(['Readonly', 'ReadonlyArray', 'Record', 'Array'])

describe('Config value types', () => {
  it('are exported from the package entry', () => {
    const config = readFileSync('src/core/config.ts', 'utf8')
    const body = /export interface Config \{([\s\S]*?)\n\}/.exec(config)?.[1] ?? ''
    const fields = [...body.matchAll(/^\s+readonly \w+\??: (.+)$/gm)].map((match) => match[1])
    expect(fields.length).toBeGreaterThan(50)
    const named = new Set(fields.flatMap((type) => type.match(/\b[A-Z]\w*/g) ?? []).filter((name) => !BUILT_IN.has(name)))
    expect(named.size).toBeGreaterThan(5)
    const entry = readFileSync('src/core/index.ts', 'utf8')
    const exported = new Set([...entry.matchAll(/export (?:type )?\{([^}]*)\} from '\.\/config\.js'/g)].flatMap((match) => match[1].split(',').map((name) => name.trim().replace(/^type /, ''))))
    expect([...named].filter((name) => !exported.has(name))).toEqual([])
  })
})
