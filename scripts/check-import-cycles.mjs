#!/usr/bin/env node
// Fails on an import cycle between the modules of src/ (docs/style.md forbids them). The graph is
// dpdm's (it parses with TypeScript and resolves like tsconfig.json does); type-only imports and
// `export … from` count as edges, because a cycle of types is still a cycle of concepts. Every
// elementary cycle of the graph is listed, each written from its alphabetically first module, so
// the output does not depend on the order files are walked in.
//
// ALLOWED lists, by name, cycles tolerated while they are being broken (the four main had when
// this check was added are gone: src/core/memo/derivation-memo.ts and src/shell/logger.ts broke
// them). A cycle not in the list fails, and so does an entry that no longer occurs (delete it), so
// the list only shrinks; src/ has no cycle and the list is empty.
//
//   npm run check:imports                      # this check alone
//   node scripts/check-import-cycles.mjs [dir] # on another folder (the tests use one); dir's
//                                              # cycles are then reported without the allow-list
import { parseDependencyTree } from 'dpdm'
import { relative, resolve } from 'node:path'

const ALLOWED = []
const MAX_CYCLES = 500

const cwd = process.cwd()
const root = resolve(process.argv[2] ?? 'src')
const useAllowList = process.argv[2] === undefined
const rel = (path) => relative(cwd, resolve(cwd, path)).split('\\').join('/')

const tree = await parseDependencyTree([`${relative(cwd, root) || '.'}/**/*.ts`], {
  context: cwd,
  tsconfig: undefined,
  transform: false, // keep type-only imports
  skipDynamicImports: false,
})

// module -> the modules of src/ it imports (packages and unresolved requests are not nodes)
const graph = new Map()
const inside = (id) => id !== null && resolve(cwd, id).startsWith(root) && id.endsWith('.ts')
for (const [id, deps] of Object.entries(tree)) {
  if (!inside(id)) continue
  const targets = new Set((deps ?? []).map((d) => d.id).filter(inside).map(rel))
  graph.set(rel(id), [...targets].sort())
}

// Tarjan's strongly connected components, then every elementary cycle inside each component by
// backtracking from each start node over the nodes after it (each cycle found once, from its
// first node); capped so that a tangle reports itself instead of running for ever.
const sccs = []
{
  let counter = 0
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const visit = (v) => {
    index.set(v, counter)
    low.set(v, counter)
    counter += 1
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)))
    }
    if (low.get(v) === index.get(v)) {
      const component = []
      let w
      do {
        w = stack.pop()
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) sccs.push(component.sort())
    }
  }
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v)
}

const cycles = []
let truncated = false
for (const component of sccs) {
  const members = new Set(component)
  for (const start of component) {
    const path = [start]
    const onPath = new Set(path)
    const extend = (v) => {
      for (const w of graph.get(v) ?? []) {
        if (!members.has(w) || w < start) continue
        if (w === start) {
          if (cycles.length >= MAX_CYCLES) {
            truncated = true
            return
          }
          cycles.push([...path, start].join(' -> '))
        } else if (!onPath.has(w)) {
          path.push(w)
          onPath.add(w)
          extend(w)
          onPath.delete(w)
          path.pop()
        }
      }
    }
    extend(start)
  }
}
cycles.sort()

const allowed = new Set(useAllowList ? ALLOWED : [])
const found = new Set(cycles)
const fresh = cycles.filter((c) => !allowed.has(c))
const stale = [...allowed].filter((c) => !found.has(c))
const problems = [
  ...fresh.map((c) => `new import cycle: ${c}`),
  ...stale.map((c) => `allowed cycle no longer occurs, delete it from ALLOWED in scripts/check-import-cycles.mjs: ${c}`),
]
if (truncated) problems.push(`more than ${MAX_CYCLES} cycles; only the first ${MAX_CYCLES} are listed`)

if (problems.length > 0) {
  console.error(
    `import cycle check failed (${problems.length}):\n` +
      problems.map((p) => `  ${p}`).join('\n') +
      '\n  Type-only imports count. Break a cycle by moving what both sides need into a module below them' +
      ' (docs/architecture.md); re-run with `npm run check:imports`.',
  )
  process.exit(1)
}
console.log(
  `import cycle check: ${graph.size} modules, ${cycles.length} cycle(s)` +
    `${allowed.size > 0 ? `, all on the allow-list of scripts/check-import-cycles.mjs (${allowed.size} left to break)` : ''}`,
)
