#!/usr/bin/env node
// Fails on citations a clone of the repository cannot follow, in src/, test/, property-tests/,
// scripts/ and bench/ (comments and test names alike; docs/style.md: comments cite sections of
// docs/contract.md or files in the repository), and in README.md and docs/*.md (docs/contract.md
// and docs/context-simple-README.txt are left out: they are the contract and the original module's
// README, which say what they say):
//   - a tracker issue number (the word issue and a number, "issues" and several, or # and a number);
//   - a document of the shared folder by its bare name (RECORDING.md, SPEC.md, STYLE.md,
//     CONFORMANCE.md), which the repository holds under docs/;
//   - a docs/*.md file that does not exist;
//   - in Markdown pages, a commit (7 to 40 hex digits, letters and digits both) that is not in the
//     history of HEAD, such as a branch's hash from before its rebase (in no clone). A word that
//     begins a file name under fixtures/sessions (a session id such as 4d5611e5) is not a commit,
//     nor the words of NOT_COMMITS. Skipped, with a note, where there is no history to check
//     against: no git, a shallow clone, or a history holding none of the cited commits (a copy).
// (This file names the shared documents it looks for, so it does not read itself.)
//
//   npm run check:citations                            # this check alone
//   node scripts/check-citations.mjs [dir or file ...] # other paths (the tests use a folder)
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join, relative, resolve } from 'node:path'

const ROOTS = ['src', 'test', 'property-tests', 'scripts', 'bench', 'README.md', 'docs']
const EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.sh', '.md'])
const SHARED = {
  'RECORDING.md': 'docs/recording-format.md',
  'SPEC.md': 'docs/contract.md (section 17 overrides the rest)',
  'STYLE.md': 'docs/style.md',
  'CONFORMANCE.md': 'docs/conformance.md',
}
const FIX =
  'cite a section of docs/contract.md ("SPEC 17.9") or a file of the repository (docs/configuration.md, "Strict fit") instead'

const repo = resolve(new URL('..', import.meta.url).pathname)
const targets = process.argv.length > 2 ? process.argv.slice(2).map((p) => resolve(p)) : ROOTS.map((p) => join(repo, p))

const self = resolve(new URL(import.meta.url).pathname)
const EXCLUDED = new Set([self, join(repo, 'docs/contract.md')])
const files = []
const walk = (path) => {
  if (!existsSync(path) || EXCLUDED.has(path)) return
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) if (name !== 'node_modules') walk(join(path, name))
  } else if (EXTENSIONS.has(extname(path))) files.push(path)
}
targets.forEach(walk)

const rules = [
  [/\bissues?\s+#?\d+(?:(?:\s*,\s*|\s+and\s+|\s+or\s+)#?\d+)*/gi, (m) => `cites the tracker's ${m[0]}: ${FIX}`],
  [/(?<![\w&#./'"`$-])#\d+\b(?![\w-])/g, (m) => `cites the tracker's ${m[0]}: ${FIX}`],
  [/(?<![\w./-])(RECORDING|SPEC|STYLE|CONFORMANCE)\.md\b/g, (m) => `cites ${m[0]} of the shared folder: the repository holds it as ${SHARED[m[0]]}`],
  [/(?<![\w./-])docs\/[\w./-]+?\.md\b/g, (m) => (existsSync(join(repo, m[0])) ? null : `cites ${m[0]}, which the repository does not hold`)],
]

// In a Markdown page a shared document's name in backticks (`SPEC.md`) is the name discussed (the
// header of a copied document saying which file of the repository holds it), not a citation.
const markdownRules = [rules[0], rules[1], [/(?<![\w./`-])(RECORDING|SPEC|STYLE|CONFORMANCE)\.md\b(?!`)/g, rules[2][1]], rules[3]]

// Hex words of the pages that are not commits: docs/evaluation.md's example of two facts sharing characters.
const NOT_COMMITS = new Set(['ab12cd34'])
const HEX_WORD = /(?<![\w./#-])[0-9a-f]{7,40}(?![\w-])/g
const sessionNames = []
const collectNames = (dir) => {
  if (!existsSync(dir)) return
  for (const name of readdirSync(dir)) {
    if (statSync(join(dir, name)).isDirectory()) collectNames(join(dir, name))
    else sessionNames.push(name)
  }
}
collectNames(join(repo, 'fixtures/sessions'))
const isCommitWord = (word) => /[a-f]/.test(word) && /\d/.test(word) && !NOT_COMMITS.has(word) && !sessionNames.some((name) => name.startsWith(word))
const git = (...args) => spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
const cited = [] // [where, hash]

const problems = []
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n')
  lines.forEach((line, index) => {
    for (const [pattern, describe] of extname(file) === '.md' ? markdownRules : rules) {
      for (const match of line.matchAll(pattern)) {
        const why = describe(match)
        if (why !== null) problems.push(`${relative(process.cwd(), file)}:${index + 1}: ${why}`)
      }
    }
    if (extname(file) === '.md') for (const [word] of line.matchAll(HEX_WORD)) if (isCommitWord(word)) cited.push([`${relative(process.cwd(), file)}:${index + 1}`, word])
  })
}

let commitNote = `${cited.length} cited commits in the history`
if (cited.length > 0) {
  const shallow = git('rev-parse', '--is-shallow-repository')
  const history = shallow.status === 0 && shallow.stdout.trim() === 'false' ? git('rev-list', 'HEAD') : null
  if (history === null || history.status !== 0) commitNote = 'cited commits not checked (no git history here, or a shallow clone)'
  else {
    const hashes = history.stdout.split('\n').filter((hash) => hash !== '')
    const missing = cited.filter(([, word]) => !hashes.some((hash) => hash.startsWith(word)))
    if (missing.length === cited.length) commitNote = `cited commits not checked (this history holds none of the ${cited.length})`
    else
      for (const [where, word] of missing)
        problems.push(`${where}: cites commit ${word}, which is not in the history of HEAD (a hash from before a rebase?): cite the commit that landed (git log --grep), or the command that reproduces the figure`)
  }
}

if (problems.length > 0) {
  console.error(
    `citation check failed (${problems.length}):\n` +
      problems.map((p) => `  ${p}`).join('\n') +
      '\n  A clone cannot open the tracker or the shared folder. Re-run with `npm run check:citations`.',
  )
  process.exit(1)
}
console.log(`citation check: ${files.length} files, no tracker issue numbers or missing documents cited; ${commitNote}`)
