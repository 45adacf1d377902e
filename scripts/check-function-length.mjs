#!/usr/bin/env node
// Fails on a function of src/core longer than MAX_LINES lines (docs/style.md, Naming and docs: a
// function a reader can hold in view). Every function counts: declarations, methods, accessors,
// constructors, function expressions and arrow functions, nested ones too (a nested function's
// lines count for it and for the function around it). A function's length is the number of lines from the line
// its declaration starts on (its doc comment excluded) to the line its body ends on.
//
// The parser is the TypeScript compiler API, version 5 (the project's own typescript 7 is native
// and has no JavaScript API), taken from dpdm's dependency (the import check's tool) so that it
// does not shadow the project's `tsc` binary.
//
// scripts/function-length-allowed.json lists, by "file#name" (a second function of that name in
// the file is "name(2)"), the functions tolerated while they are being split, each with its length
// when it was listed: a listed function may not grow past it, and an entry whose function is now
// short enough, or gone, fails the check (delete it), so the list only shrinks.
//
//   npm run check:functions                         # this check alone
//   node scripts/check-function-length.mjs --list   # every function over the limit, allowed or not
//   node scripts/check-function-length.mjs --root DIR  # another folder laid out alike (DIR/src/core)
import { createRequire } from 'node:module'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

const MAX_LINES = 80
const args = process.argv.slice(2)
const tools = resolve(new URL('..', import.meta.url).pathname)
const rootArg = args.indexOf('--root')
if (rootArg >= 0 && args[rootArg + 1] === undefined) {
  console.error('usage: node scripts/check-function-length.mjs [--list] [--root DIR]')
  process.exit(2)
}
const repo = rootArg >= 0 ? resolve(args[rootArg + 1]) : tools
const list = args.includes('--list')

const require = createRequire(import.meta.url)
const ts = createRequire(require.resolve('dpdm/package.json'))('typescript')
if (!/^5\./.test(ts.version)) {
  console.error(`check-function-length: needs the TypeScript 5 compiler API, found ${ts.version}`)
  process.exit(2)
}

const allowFile = join(repo, 'scripts/function-length-allowed.json')
const allowed = existsSync(allowFile) ? (JSON.parse(readFileSync(allowFile, 'utf8')).functions ?? {}) : {}

const walk = (dir) =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) return walk(path)
      return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
    })

// The name a reader would look for: the declared name, the variable or property an anonymous
// function is assigned to, else `<anonymous>`; methods are prefixed with their class.
const nameOf = (node) => {
  const text = (n) => (n && (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isPrivateIdentifier(n)) ? n.text : n?.getText())
  if (ts.isConstructorDeclaration(node)) return `${text(node.parent.name) ?? '<class>'}.constructor`
  if (node.name) {
    const own = text(node.name)
    const cls = ts.isClassLike(node.parent) ? text(node.parent.name) : undefined
    return cls ? `${cls}.${own}` : own
  }
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return text(parent.name)
  if (ts.isBinaryExpression(parent)) return parent.left.getText()
  return '<anonymous>'
}

const isFunction = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node)

const found = [] // { key, file, line, lines }
const coreDir = join(repo, 'src/core')
for (const path of walk(coreDir)) {
  const file = relative(repo, path).split('\\').join('/')
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true)
  const seen = new Map()
  const visit = (node) => {
    if (isFunction(node) && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const end = source.getLineAndCharacterOfPosition(node.body.getEnd()).line
      const lines = end - start + 1
      if (lines > MAX_LINES) {
        const name = nameOf(node)
        const n = (seen.get(name) ?? 0) + 1
        seen.set(name, n)
        found.push({ key: `${file}#${n > 1 ? `${name}(${n})` : name}`, file, line: start + 1, lines })
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
}

const problems = []
for (const f of found) {
  const limit = allowed[f.key]
  if (limit === undefined) problems.push(`${f.file}:${f.line} ${f.key.split('#')[1]} is ${f.lines} lines (at most ${MAX_LINES}): split it`)
  else if (f.lines > limit) problems.push(`${f.file}:${f.line} ${f.key.split('#')[1]} grew to ${f.lines} lines (allowed at ${limit} while it is split): split it`)
}
const over = new Set(found.map((f) => f.key))
for (const key of Object.keys(allowed)) {
  if (!over.has(key)) problems.push(`${key} is listed in scripts/function-length-allowed.json but is no longer over ${MAX_LINES} lines (or is gone): delete the entry`)
}

if (list) {
  for (const f of [...found].sort((a, b) => b.lines - a.lines)) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.key.split('#')[1]}${allowed[f.key] !== undefined ? '  (allowed)' : ''}`)
}
if (problems.length > 0) {
  console.error(`check-function-length: ${problems.length} problem(s) in src/core:`)
  for (const p of problems) console.error(`  ${p}`)
  process.exit(1)
}
console.log(
  `check-function-length: no function in src/core over ${MAX_LINES} lines` +
    (found.length > 0 ? ` but the ${found.length} allowed while they are split (scripts/function-length-allowed.json)` : ''),
)
