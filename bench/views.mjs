// Are the views the same? Every view a ContextManager makes for the shared sessions
// (fixtures/sessions), under four configurations, digested per request (SHA-1 of the view's JSON
// or of the error, the meter stats, and at the end every hook event but the meter's), compared
// between builds. `replay --view-format` never asks for the contract shape the manager asks for by
// default, so a change to that path (provider_rules on the contract view, docs/performance.md)
// shows here and not in a replay. Each build runs in a process of its own; fixed clock.
//
//   node bench/views.mjs DIR_A DIR_B     (each a checkout with dist/ built)
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const FORMATS = ['contract', 'anthropic', 'openai-chat', 'openai-responses', 'ai-sdk']
const VARIANTS = {
  // the contract shape, provider_rules repairing / warning, budgets that compact
  'contract, provider_rules repair, 60,000': { config: { provider_rules: 'repair' }, budget: 60000, format: () => 'contract', repair: false },
  'contract, provider_rules warn, notice, 30,000': { config: { provider_rules: 'warn', compaction_notice_enabled: true }, budget: 30000, format: () => 'contract', repair: false },
  // the view format switched on every request, breakpoints on, repair
  'formats switched, breakpoints, repair, 60,000': { config: { anthropic_cache_breakpoints: true }, budget: 60000, format: (i) => FORMATS[i % FORMATS.length], repair: true },
  'anthropic, breakpoints, provider_rules repair, repair, 40,000': { config: { anthropic_cache_breakpoints: true, provider_rules: 'repair' }, budget: 40000, format: () => 'anthropic', repair: true },
}
const sessions = () =>
  readdirSync(resolve(root, 'fixtures/sessions'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) => readdirSync(resolve(root, 'fixtures/sessions', dir.name)).filter((name) => /\.jsonl?(\.gz)?$/.test(name)).map((name) => resolve(root, 'fixtures/sessions', dir.name, name)))

const digest = (text) => createHash('sha1').update(text).digest('hex')

/** The digest lines of one build (run in a child process: `--child DIR`). */
const child = async (dir) => {
  const load = (path) => import(resolve(dir, 'dist', path))
  const { ContextManager } = await load('shell/context-manager.js')
  const { silentLogger } = await load('shell/logger.js')
  const { makeMemorySpillWriter } = await load('shell/spill-fs.js')
  const { loadRecordings } = await load('shell/importers/detect.js')
  const { readTextFile } = await load('shell/read-text.js')
  for (const file of sessions()) {
    for (const [name, variant] of Object.entries(VARIANTS)) {
      const lines = []
      for (const recording of loadRecordings(readTextFile(file), file, 'auto').recordings) {
        const hooks = { register: () => () => {}, emit: (event, data) => void (event !== 'context:token_meter' && lines.push(`${event} ${JSON.stringify(data)}`)) }
        const options = { clock: { now: () => Date.UTC(2026, 0, 1) }, logger: silentLogger, spillWriter: makeMemorySpillWriter(), repair: variant.repair, hooks }
        const manager = new ContextManager({ ...recording.config, ...variant.config }, options)
        let requests = 0
        for (const op of recording.ops) {
          if (op.op === 'add_message') await manager.addMessage(op.message)
          else if (op.op === 'llm_response') await manager.onLlmResponse({ usage: op.usage })
          else if (op.op === 'set_messages') await manager.setMessages(op.messages)
          else if (op.op === 'clear') await manager.clear()
          else if (op.op === 'get_messages_for_request') {
            const format = variant.format(requests)
            requests += 1
            let text
            try {
              text = JSON.stringify(await manager.getMessagesForRequest({ tokenBudget: variant.budget, format }))
            } catch (error) {
              text = `${error.name}: ${error.message}`
            }
            lines.push(`${format} ${digest(text)} ${JSON.stringify(manager.lastTokenMeterStats)}`)
          }
        }
      }
      console.log(`${file.slice(root.length + 1)} | ${name} | ${lines.filter((line) => FORMATS.includes(line.split(' ')[0])).length} views | ${digest(lines.join('\n'))}`)
    }
  }
}

if (process.argv[2] === '--child') await child(process.argv[3])
else {
  const dirs = process.argv.slice(2).map((dir) => resolve(dir))
  if (dirs.length < 2) throw new Error('usage: node bench/views.mjs DIR_A DIR_B [...]')
  const outputs = dirs.map((dir) => execFileSync(process.execPath, [import.meta.filename, '--child', dir], { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n'))
  let differ = 0
  outputs[0].forEach((line, index) => {
    const others = outputs.slice(1).map((output) => output[index])
    const same = others.every((other) => other === line)
    if (!same) differ += 1
    console.log(`${same ? 'same  ' : 'DIFFER'} ${line.split(' | ').slice(0, 3).join(' | ')}`)
  })
  console.log(`${outputs[0].length - differ} of ${outputs[0].length} identical across ${dirs.length} builds`)
  if (differ > 0) process.exitCode = 1
}
