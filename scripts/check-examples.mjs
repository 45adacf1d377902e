#!/usr/bin/env node
// Compiles every `@example` of the doc comments in src/ (the TypeScript equivalent of a doctest).
// Each example becomes one module under build/examples/ (gitignored), which imports what it uses
// from 'context-simple' (resolved to src/ through package.json's exports, see tsconfig.json there):
// the names the example mentions that the package exports are imported for it, and an example may
// write its own import lines (`node:fs` to make a file, say). The example of an export that the
// package does not export (an internal helper, read by maintainers) may also use what other modules
// of src/ export, its own module's first, imported by path. Nothing else is put in front of an
// example: no `declare`, no `any`. The
// project's tsc then type-checks them all; an error fails the check, named by the source file,
// line and export of its example.
//
// Result comments: a line `expression // => value` states the value; with --run (npm test runs it)
// each example is also executed with tsx and every such line is checked with a deep equality
// against `value` (a JavaScript expression, e.g. `true`, `[1, 2]`, `{ kind: 'window' }`). Other
// trailing comments are prose and are not checked.
//
//   npm run check:examples                    # extract, type-check and run
//   node scripts/check-examples.mjs --no-run  # extract and type-check only
//   node scripts/check-examples.mjs --list    # every example and where its file is written
//   node scripts/check-examples.mjs --all     # the known failing ones too (to fix them)
//   node scripts/check-examples.mjs --root DIR # another project laid out alike (the tests use one)
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const args = new Set(process.argv.slice(2))
const tools = resolve(new URL('..', import.meta.url).pathname)
const rootArg = process.argv.indexOf('--root')
const repo = rootArg > 0 ? resolve(process.argv[rootArg + 1]) : tools
// Examples main had that did not compile when this check was added, by the name of what they
// document: they are skipped (not compiled, not run) until fixed, and an entry whose example now
// compiles, or that documents nothing any more, fails the check (delete it), so the list only shrinks.
const knownFile = join(repo, 'scripts/examples-known-failing.json')
const KNOWN_FAILING = new Set(existsSync(knownFile) && !args.has('--all') ? JSON.parse(readFileSync(knownFile, 'utf8')) : [])
const out = join(repo, 'build/examples')
const run = !args.has('--no-run')
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'))

// --- the package's entry points: 'context-simple' and its subpaths, mapped from dist/ to src/
const toSource = (distPath) => distPath.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$|\.js$/, '.ts')
const entries = new Map()
for (const [subpath, target] of Object.entries(pkg.exports ?? { '.': pkg.main })) {
  const file = typeof target === 'string' ? target : target.types ?? target.import ?? target.default
  if (typeof file !== 'string') continue
  const source = toSource(file)
  if (!existsSync(join(repo, source))) continue
  entries.set(subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`, source)
}

// --- what a module exports, by name (values and types alike), following `export … from`
const stripComments = (text) => text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
const resolveSpec = (from, spec) => {
  const base = resolve(dirname(from), spec)
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.tsx')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
  }
  return null
}
const exportCache = new Map()
const exportsOf = (file) => {
  if (exportCache.has(file)) return exportCache.get(file)
  const names = new Set()
  exportCache.set(file, names)
  const code = stripComments(readFileSync(file, 'utf8'))
  for (const m of code.matchAll(/^\s*export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:const|let|var|function\*?|class|type|interface|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm)) names.add(m[1])
  for (const m of code.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}(?:\s*from\s*['"]([^'"]+)['"])?/g)) {
    for (const part of m[1].split(',')) {
      const piece = part.trim().replace(/^type\s+/, '')
      if (piece === '') continue
      const alias = piece.split(/\s+as\s+/)
      names.add((alias[1] ?? alias[0]).trim())
    }
  }
  for (const m of code.matchAll(/export\s+\*\s+from\s*['"]([^'"]+)['"]/g)) {
    const target = resolveSpec(file, m[1])
    if (target !== null) for (const name of exportsOf(target)) names.add(name)
  }
  return names
}
const publicNames = new Map() // name -> entry specifier
for (const [spec, source] of entries) for (const name of exportsOf(join(repo, source))) if (!publicNames.has(name)) publicNames.set(name, spec)

// --- the examples: every `@example` block of a `/** … */` comment, named by what follows it
const files = []
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path)
  }
}
walk(join(repo, 'src'))

const examples = []
for (const file of files) {
  const text = readFileSync(file, 'utf8')
  for (const block of text.matchAll(/\/\*\*([\s\S]*?)\*\//g)) {
    const body = block[1]
    if (!body.includes('@example')) continue
    const startLine = text.slice(0, block.index).split('\n').length
    const after = text.slice(block.index + block[0].length)
    const decl = /^\s*(export\s+)?(?:declare\s+)?(?:default\s+)?(?:static\s+)?(?:readonly\s+)?(?:public\s+|private\s+|protected\s+)?(?:async\s+)?(?:abstract\s+)?(?:(?:const|let|var|function\*?|class|type|interface|enum|namespace|get|set)\s+)?([A-Za-z_$#][\w$]*)/.exec(after)
    const name = decl?.[2] ?? '(unnamed)'
    const exported = decl?.[1] !== undefined
    const lines = body.split('\n').map((line) => line.replace(/^\s*\* ?/, ''))
    let current = null
    lines.forEach((line, index) => {
      const tag = /^@(\w+)/.exec(line.trim())
      if (tag !== null) {
        if (current !== null) examples.push(current)
        current = tag[1] === 'example' ? { file, name, exported, line: startLine + index, code: [line.trim().replace(/^@example\s*/, '')].filter((l) => l !== '') } : null
        return
      }
      if (current !== null) current.code.push(line)
    })
    if (current !== null) examples.push(current)
  }
}
for (const example of examples) {
  while (example.code.length > 0 && example.code[example.code.length - 1].trim() === '') example.code.pop()
  // the lines after `@example` start one below it
  example.first = example.line + 1
}

// names exported by a module of src/ only (not by the package), each with the module that
// declares it (the first, in path order, when several re-export it)
const internalNames = new Map()
for (const file of files) {
  const declaredHere = new Set([...stripComments(readFileSync(file, 'utf8')).matchAll(/^\s*export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:const|let|var|function\*?|class|type|interface|enum)\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]))
  for (const name of declaredHere) if (!publicNames.has(name) && !internalNames.has(name)) internalNames.set(name, file)
}

// --- one module per example
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const RESULT = /^(\s*)(.*?\S)\s*\/\/\s*=>\s*(.+?)\s*$/
const identifiers = (code) => new Set(stripComments(code).replace(/(['"`])(?:\\.|(?!\1)[^\\])*\1/g, ' ').match(/[A-Za-z_$][\w$]*/g) ?? [])
const declared = (code) =>
  new Set([...code.matchAll(/\b(?:const|let|var|function|class|type|interface|enum)\s+([A-Za-z_$][\w$]*)/g)].map((m) => m[1]))
const written = []
for (const example of examples) {
  const rel = relative(repo, example.file)
  // named by line too: two names may differ only in case (memoryLogger, MemoryLogger)
  const target = join(out, rel.replace(/\.ts$/, ''), `${example.line}-${example.name.replace(/[^\w$]/g, '_')}.ts`)
  const body = example.code.join('\n')
  // an example's own import lines stay where they are (imports may stand anywhere at top level)
  const own = [...body.matchAll(/^\s*import\s[\s\S]*?from\s*['"]([^'"]+)['"]\s*;?\s*$/gm)].map((m) => m[0])
  const code = example.code
  const localNames = declared(body)
  const importedNames = new Set(own.flatMap((line) => [...(line.match(/\{([^}]*)\}/)?.[1] ?? '').split(',')].map((p) => p.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop())))
  const wanted = [...identifiers(code.join('\n'))].filter((id) => !localNames.has(id) && !importedNames.has(id)).sort()
  const bySpec = new Map()
  // an internal export's example: its own module's names first, then any module's
  const internal = !publicNames.has(example.name)
  const ownNames = internal ? exportsOf(example.file) : new Set()
  const byPath = (file) => relative(dirname(target), file).replace(/\.ts$/, '.js')
  for (const id of wanted) {
    const spec = publicNames.get(id) ?? (!internal ? null : ownNames.has(id) ? byPath(example.file) : internalNames.has(id) ? byPath(internalNames.get(id)) : null)
    if (spec === null) continue
    bySpec.set(spec, [...(bySpec.get(spec) ?? []), id])
  }
  const header = [
    `// The @example of ${example.name} at ${rel}:${example.line}, written by scripts/check-examples.mjs.`,
    ...[...bySpec].map(([spec, names]) => `import { ${names.join(', ')} } from '${spec.startsWith('.') ? spec : spec}'`),
    `import { checkResult } from '${relative(dirname(target), join(out, 'check-result.js'))}'`,
  ].filter((line) => line !== null)
  let resultCount = 0
  const lines = code.map((line, index) => {
    const m = RESULT.exec(line)
    if (m === null || m[2].includes('//') || /^(const|let|var|type|interface|import|export)\b/.test(m[2].trim())) return line
    resultCount += 1
    const where = `${rel}:${example.first + index}`
    return `${m[1]}checkResult(${JSON.stringify(where)}, ${JSON.stringify(m[2])}, (${m[2]}), (${m[3]}))`
  })
  const text = [...header, '', ...lines, '', 'export {}', ''].join('\n')
  const offset = header.length + 1 // generated line = offset + index in example.code (+1)
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, text)
  written.push({ ...example, rel, target, offset, code: example.code, resultCount })
}
{
  // written and compiled with --no-run too, so both modes type-check the same code
  writeFileSync(
    join(out, 'check-result.ts'),
    [
      "import { isDeepStrictEqual, inspect } from 'node:util'",
      '/** Arrays and objects as plain ones (an appendable list is an array of another prototype). */',
      'const plain = (value: unknown): unknown =>',
      '  Array.isArray(value) ? Array.from(value, plain)',
      "    : value !== null && typeof value === 'object' && !(value instanceof Set) && !(value instanceof Map) && !(value instanceof Error)",
      '      ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]))',
      '      : value',
      '/** Records a false `// =>` result comment of an example; the runner fails on any. */',
      'export const checkResult = (where: string, source: string, actual: unknown, expected: unknown): void => {',
      '  if (isDeepStrictEqual(plain(actual), plain(expected))) return',
      '  process.exitCode = 1',
      '  console.error(`${where}: ${source} is ${inspect(actual, { depth: 6 })}, the example says ${inspect(expected, { depth: 6 })}`)',
      '}',
      '',
    ].join('\n'),
  )
}
const relToRepo = relative(out, repo)
writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify(
    {
      extends: join(relToRepo, 'tsconfig.json'),
      compilerOptions: {
        noEmit: true,
        rootDir: relToRepo,
        paths: Object.fromEntries([...entries].map(([spec, source]) => [spec, [join(relToRepo, source)]])),
      },
      include: ['./**/*.ts'],
    },
    null,
    2,
  ) + '\n',
)

if (args.has('--list')) {
  for (const w of written) console.log(`${w.rel}:${w.line} ${w.name} -> ${relative(process.cwd(), w.target)}`)
}

// --- type-check
const tsc = join(tools, 'node_modules/.bin/tsc')
const result = spawnSync(tsc, ['-p', join(out, 'tsconfig.json'), '--pretty', 'false'], { encoding: 'utf8', cwd: repo })
const byTarget = new Map(written.map((w) => [resolve(w.target), w]))
const problems = []
const failingNames = new Set()
const failingTargets = new Set()
for (const line of `${result.stdout}\n${result.stderr}`.split('\n')) {
  const m = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line.trim())
  if (m === null) {
    if (/error TS/.test(line)) problems.push(line.trim())
    continue
  }
  const w = byTarget.get(resolve(repo, m[1]))
  if (w === undefined) {
    problems.push(`${m[1]}:${m[2]}: ${m[4]} ${m[5]}`)
    continue
  }
  failingNames.add(w.name)
  failingTargets.add(w.target)
  if (KNOWN_FAILING.has(w.name)) continue
  const index = Number(m[2]) - 1 - w.offset
  const sourceLine = index >= 0 && index < w.code.length ? w.first + index : w.line
  problems.push(`${w.rel}:${sourceLine}: the @example of ${w.name} does not compile: ${m[4]} ${m[5]} (${relative(repo, m[1])}:${m[2]})`)
}
if (problems.length === 0 && result.status !== 0 && failingNames.size === 0) problems.push(`tsc exited with ${result.status}:\n${result.stdout}${result.stderr}`)
for (const name of [...KNOWN_FAILING].sort()) {
  if (!failingNames.has(name)) problems.push(`scripts/examples-known-failing.json: the example of ${name} compiles now (or is gone): delete the entry`)
}

// every public export carries an example (the brief: a doc comment with an @example that compiles)
for (const file of files) {
  const text = readFileSync(file, 'utf8')
  for (const m of text.matchAll(/^export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:const|let|function\*?|class|type|interface|enum)\s+([A-Za-z_$][\w$]*)/gm)) {
    if (!publicNames.has(m[1])) continue
    const before = text.slice(0, m.index).trimEnd()
    const doc = before.endsWith('*/') ? before.slice(before.lastIndexOf('/**')) : ''
    if (!doc.includes('@example')) {
      problems.push(`${relative(repo, file)}:${text.slice(0, m.index).split('\n').length}: the public export ${m[1]} has no @example in its doc comment${doc === '' ? ' (nor a doc comment)' : ''}`)
    }
  }
}

const help =
  '  Fix the example in its doc comment (only names the package exports, or its own module for an internal export; no declare/any).' +
  '\n  Re-run with `npm run check:examples` (`node scripts/check-examples.mjs --no-run` to type-check only); the generated files are under build/examples/.'
if (problems.length > 0) {
  console.error(`@example check failed (${problems.length}), ${written.length} examples:\n` + problems.map((p) => `  ${p}`).join('\n') + '\n' + help)
  process.exit(1)
}
const runnable = written.filter((w) => !failingTargets.has(w.target))

// --- run, checking the `// =>` result comments: one tsx process imports the modules in turn
let ran = 0
if (run) {
  const runner = join(out, 'run-all.ts')
  writeFileSync(
    runner,
    [
      '// Imports every example module in turn (each runs on import) and reports the ones that throw',
      '// or do not settle within 60 s; scripts/check-examples.mjs writes this file.',
      `const modules: ReadonlyArray<readonly [string, string]> = ${JSON.stringify(runnable.map((w) => [`${w.rel}:${w.line} ${w.name}`, `./${relative(out, w.target).replace(/\.ts$/, '.js')}`]))}`,
      'let failed = 0',
      'for (const [where, path] of modules) {',
      '  try {',
      "    await Promise.race([import(path), new Promise((_, reject) => setTimeout(() => reject(new Error('did not settle within 60 s')), 60_000).unref())])",
      '  } catch (error) {',
      '    failed += 1',
      "    console.error(`${where}: throws ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`)",
      '  }',
      '}',
      'console.log(`ran ${modules.length} examples, ${failed} threw`)',
      'process.exit(failed > 0 || process.exitCode === 1 ? 1 : 0)',
      '',
    ].join('\n'),
  )
  const tsx = join(tools, 'node_modules/.bin/tsx')
  const r = spawnSync(tsx, ['--tsconfig', join(out, 'tsconfig.json'), runner], { encoding: 'utf8', cwd: repo, timeout: 300_000 })
  ran = runnable.length
  if (r.status !== 0) {
    const lines = `${r.stderr}`.split('\n').filter((l) => /^src\//.test(l))
    console.error(
      `@example check failed: ${lines.length} problem(s) when the ${runnable.length} examples that compile run:\n` +
        (lines.length > 0 ? lines.map((l) => `  ${l}`).join('\n') : `${r.stdout}${r.stderr}`) + '\n' + help,
    )
    process.exit(1)
  }
}
const results = runnable.reduce((sum, w) => sum + w.resultCount, 0)
console.log(
  `@example check: ${runnable.length} of ${written.length} examples compile` +
    (run ? `, ${ran} run, ${results} result comments true` : '') +
    (KNOWN_FAILING.size > 0 ? `; ${KNOWN_FAILING.size} known not to compile (scripts/examples-known-failing.json)` : ''),
)
