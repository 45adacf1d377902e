#!/usr/bin/env node
// Checks that src/core stays a pure functional core: no imports from src/shell, Node built-ins or
// mitt, and no clock, randomness, environment, console or timer access. Exits 1 on a violation.
// This is the layer rule of docs/architecture.md: every import form counts (`import type`,
// `export … from`, `import('…')` types), and so does the package's own name, which reaches
// src/shell through src/index.ts. Import cycles are scripts/check-import-cycles.mjs's concern.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join, relative, resolve } from 'node:path'

const root = resolve(process.argv[2] ?? 'src/core')
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]))
const forbiddenPackages = new Set(['mitt'])
const ownName = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).name
const forbiddenGlobals = [
  [/\bDate\s*\.\s*now\b|\bnew\s+Date\b|\bDate\s*\(/, 'reads the clock (time arrives on events)'],
  [/\bperformance\s*\./, 'reads the clock (performance)'],
  [/\bMath\s*\.\s*random\b|\bcrypto\s*\.\s*(randomUUID|getRandomValues)\b/, 'uses randomness (ids come from state counters)'],
  [/\bprocess\s*\./, 'reads the environment (process)'],
  [/\bconsole\s*\./, 'logs directly (logging is a Log effect)'],
  [/\b(setTimeout|setInterval|setImmediate|queueMicrotask)\s*\(/, 'schedules work (the shell owns time)'],
  [/\bglobalThis\b/, 'reaches into globals'],
  [/\brequire\s*\(/, 'uses require'],
]

const files = []
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (name.endsWith('.ts')) files.push(path)
  }
}
walk(root)

const stripComments = (text) => text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
const problems = []
for (const file of files) {
  const code = stripComments(readFileSync(file, 'utf8'))
  const lines = code.split('\n')
  lines.forEach((line, index) => {
    const where = `${relative(process.cwd(), file)}:${index + 1}`
    for (const match of line.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
      const spec = match[1]
      const target = spec.startsWith('.') ? resolve(file, '..', spec) : null
      if (target !== null && !target.startsWith(root)) problems.push(`${where}: imports ${spec} from outside src/core`)
      else if (spec === ownName || spec.startsWith(`${ownName}/`)) problems.push(`${where}: imports ${spec}, the package itself (src/index.ts re-exports src/shell)`)
      else if (builtins.has(spec)) problems.push(`${where}: imports the Node built-in ${spec}`)
      else if (forbiddenPackages.has(spec.split('/')[0])) problems.push(`${where}: imports ${spec} (the shell's event bus)`)
    }
    for (const [pattern, why] of forbiddenGlobals) if (pattern.test(line)) problems.push(`${where}: ${why}: ${line.trim()}`)
  })
}

if (problems.length > 0) {
  console.error(`src/core purity check failed (${problems.length}):\n` + problems.map((p) => `  ${p}`).join('\n'))
  process.exit(1)
}
console.log(`src/core purity check: ${files.length} files clean`)
