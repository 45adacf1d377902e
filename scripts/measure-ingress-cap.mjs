#!/usr/bin/env node
// What the ingress cap (tool_result_ingress_cap_bytes, docs/contract.md 17.15) changes in what is
// sent: replays every shared session through a built CLI (`npm run build` first) in each message
// format its importer gives it (Claude Code: contract and, with --view-format anthropic, natively
// anthropic; tau-bench: contract, viewed as openai-chat; Codex: openai-responses), with and
// without a cap, and reads each request's view as the provider receives it. Per run: requests,
// results cut (context:tool_result_ingress_truncated), compaction boundaries, the tool-result
// bytes of all sent views and the largest single sent result, the meter's estimate summed over
// requests, an independent count of the sent views (gpt-tokenizer o200k_base over each view
// message's JSON; never the meter's estimator), and the requests whose o200k count passes the
// budget (+800 notice reserve, as scripts/measure-guards.mjs).
// Usage: node scripts/measure-ingress-cap.mjs [--cli DIR] [--cap BYTES ...] [--sessions DIR] [--only SUBSTRING]
//   --sessions: default ../shared/sessions, or fixtures/sessions in a clone without it (gzipped files are read too).
//   --cli: the tree whose bin/context-simple.js replays (default: this repository), so two builds
//   can be compared with one analyser.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'

const args = process.argv.slice(2)
const flag = (name, fallback) => {
  const index = args.indexOf(name)
  return index >= 0 ? args[index + 1] : fallback
}
const cli = resolve(flag('--cli', '.'), 'bin/context-simple.js')
// The shared sessions beside the clone, else the repository's copies of them (the same files, the large ones gzipped).
const root = resolve(flag('--sessions', existsSync('../shared/sessions') ? '../shared/sessions' : 'fixtures/sessions'))
const only = flag('--only', '')
const caps = args.flatMap((arg, index) => (args[index - 1] === '--cap' ? [Number(arg)] : []))
const CAPS = [null, ...(caps.length > 0 ? caps : [20000, 4000])]

/** Session files and the runs (view format, budget) their importer gives them. */
const runsOf = (path) => {
  const name = relative(root, path)
  if (name.startsWith('claude-code')) return [['contract', '60000'], ['anthropic', '60000']]
  if (name.startsWith('codex')) return [['openai-responses', '60000']]
  if (name.startsWith('openai-chat')) return [['openai-chat', '4500']]
  return []
}
const files = []
const walk = (dir) => {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) walk(path)
    else if (/\.(jsonl|json)(\.gz)?$/.test(entry) && relative(root, path).includes(only)) files.push(path)
  }
}
walk(root)

/** o200k tokens of one view message's JSON, cached per object (views share their messages). */
const tokenCache = new WeakMap()
const tokensOf = (message) => {
  let tokens = tokenCache.get(message)
  if (tokens === undefined) {
    tokens = encode(JSON.stringify(message)).length
    tokenCache.set(message, tokens)
  }
  return tokens
}

/** Every tool-result text of a provider view (Chat/contract tool content, Anthropic tool_result, Responses outputs, AI SDK outputs). */
const toolTexts = (view) => {
  const out = []
  const list = Array.isArray(view) ? view : (view?.messages ?? [])
  for (const message of list) {
    if (message.role === 'tool' && typeof message.content === 'string') out.push(message.content)
    if ((message.type === 'function_call_output' || message.type === 'custom_tool_call_output') && typeof message.output === 'string') out.push(message.output)
    if (!Array.isArray(message.content)) continue
    for (const block of message.content) {
      if (block?.type === 'tool_result') out.push(typeof block.content === 'string' ? block.content : Array.isArray(block.content) ? block.content.filter((b) => b?.type === 'text').map((b) => b.text).join('\n') : '')
      if (block?.type === 'tool-result') out.push(typeof block.output?.value === 'string' ? block.output.value : JSON.stringify(block.output?.value ?? ''))
      if (message.role === 'tool' && block?.type === 'text') out.push(block.text)
    }
  }
  return out
}

const replay = (file, format, budget, cap) =>
  new Promise((done, fail) => {
    const flags = ['replay', file, '--budget', budget, '--view-format', format === 'contract' ? 'openai-chat' : format, '--json', '--no-progress', '--summarizer', 'extractive']
    if (cap !== null) flags.push('--set', `tool_result_ingress_cap_bytes=${cap}`)
    const child = spawn('node', ['--max-old-space-size=6000', cli, ...flags], { stdio: ['ignore', 'pipe', 'ignore'] })
    const totals = { requests: 0, cut: 0, boundaries: 0, resultBytes: 0, maxResult: 0, meter: 0, o200k: 0, over: 0 }
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity })
    lines.on('line', (text) => {
      if (!text.startsWith('{')) return
      const line = JSON.parse(text)
      for (const event of line.events ?? []) {
        if (event.name === 'context:tool_result_ingress_truncated') totals.cut += 1
        if (event.name === 'context:compaction') totals.boundaries += 1
      }
      if (line.view === undefined || line.view === null) return
      totals.requests += 1
      for (const result of toolTexts(line.view)) {
        const bytes = Buffer.byteLength(result)
        totals.resultBytes += bytes
        if (bytes > totals.maxResult) totals.maxResult = bytes
      }
      totals.meter += line.token_meter_stats?.estimated_tokens ?? 0
      const list = Array.isArray(line.view) ? line.view : [...(line.view.system === undefined ? [] : [{ system: line.view.system }]), ...line.view.messages]
      let tokens = 0
      for (const message of list) tokens += tokensOf(message)
      totals.o200k += tokens
      if (tokens > Number(budget) + 800) totals.over += 1
    })
    child.on('error', fail)
    child.on('close', () => done(totals))
  })

const grand = new Map()
for (const file of files) {
  for (const [format, budget] of runsOf(file)) {
    for (const cap of CAPS) {
      const t = await replay(file, format, budget, cap)
      const key = `${format}\t${cap ?? 'off'}`
      const g = grand.get(key) ?? { requests: 0, cut: 0, boundaries: 0, resultBytes: 0, maxResult: 0, meter: 0, o200k: 0, over: 0 }
      for (const field of Object.keys(g)) g[field] = field === 'maxResult' ? Math.max(g[field], t[field]) : g[field] + t[field]
      grand.set(key, g)
      console.log([relative(root, file), format, `cap ${cap ?? 'off'}`, `requests ${t.requests}`, `cut ${t.cut}`, `boundaries ${t.boundaries}`, `sent-result-bytes ${t.resultBytes}`, `max-sent-result ${t.maxResult}`, `meter ${t.meter}`, `o200k ${t.o200k}`, `over-budget ${t.over}`].join('\t'))
    }
  }
}
for (const [key, g] of grand) console.log(['TOTAL', key, `requests ${g.requests}`, `cut ${g.cut}`, `boundaries ${g.boundaries}`, `sent-result-bytes ${g.resultBytes}`, `max-sent-result ${g.maxResult}`, `meter ${g.meter}`, `o200k ${g.o200k}`, `over-budget ${g.over}`].join('\t'))
