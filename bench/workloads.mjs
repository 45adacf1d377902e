// The synthetic workloads of bench/manager.mjs and bench/ab.mjs (docs/performance.md, "Workloads"),
// and the loop both use to replay a recording's ops through a ContextManager.
import { performance } from 'node:perf_hooks'

/** The value of `--name VALUE` in `args` (removed from it), or `fallback` when absent: the bench scripts' options. */
export const takeOption = (args, name, fallback) => {
  const at = args.indexOf(name)
  if (at < 0) return fallback
  const [value] = args.splice(at, 2).slice(1)
  return value
}

/**
 * Replays recording ops through a ContextManager (any build's); returns the time of each request
 * (ms). `format`: the view format each request asks for (`getMessagesForRequest({ format })`;
 * the manager's own when omitted).
 */
export const replayOpsThroughManager = async (manager, ops, provider, format) => {
  const request = format === undefined ? { provider } : { provider, format }
  const times = []
  for (const op of ops) {
    if (op.op === 'add_message') await manager.addMessage(op.message)
    else if (op.op === 'llm_response') await manager.onLlmResponse({ usage: op.usage })
    else if (op.op === 'set_messages') await manager.setMessages(op.messages)
    else if (op.op === 'clear') await manager.clear()
    else if (op.op === 'get_messages_for_request') {
      const start = performance.now()
      await manager.getMessagesForRequest(request)
      times.push(performance.now() - start)
    }
  }
  return times
}

/** Synthetic agent turns: a user message, an assistant with 1-4 tool calls, their results (about 40-7,000 chars). */
export const syntheticTurn = (i, callBase) => {
  const calls = 1 + (i % 4)
  const ids = Array.from({ length: calls }, (_, k) => `call_${callBase + k}`)
  return [
    { role: 'user', content: `turn ${i}: please look at module ${i % 17} and fix the failing test ` + 'x'.repeat(i % 300) },
    { role: 'assistant', content: '', tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: i % 2 ? 'grep' : 'read_file', arguments: `{"path": "src/m${i}.ts"}` } })) },
    ...ids.map((id, k) => ({ role: 'tool', tool_call_id: id, content: `result of ${id}\n` + 'line of output é\n'.repeat(2 + ((i * 7 + k * 13) % 400)) })),
  ]
}
export const syntheticHistory = (count) => {
  const out = []
  let call = 0
  for (let i = 0; out.length < count; i += 1) {
    const turn = syntheticTurn(i, call)
    call += turn.length - 2
    out.push(...turn)
  }
  return out.slice(0, count)
}

/** One Responses agent turn: reasoning, a function call (merged into the reasoning's piece) and its output. */
export const responsesTurn = (i) => [
  { type: 'reasoning', id: `rs_${i}`, summary: [{ type: 'summary_text', text: `thinking about step ${i}` }] },
  { type: 'function_call', id: `fc_${i}`, call_id: `call_${i}`, name: 'read_file', arguments: `{"path": "src/m${i}.ts"}` },
  { type: 'function_call_output', call_id: `call_${i}`, output: 'line of output\n'.repeat(2 + ((i * 7) % 200)) },
]

/**
 * bench/manager.mjs's *requests* rounds on a manager (any build's) that already holds `count`
 * synthetic messages after one request (see primeManager): `rounds` rounds of one synthetic turn
 * added message by message, each add awaited through `timeAdd(call, adds)` (which times it into
 * `adds`), then one request (wall time, ms). A request is compacting when it changed
 * `lastCompactionStats` (it emitted `context:compaction`); the others are quiet. Returns the
 * quiet and compacting request times, the adds and the view lengths, in order, and the CPU time
 * of each request (`process.cpuUsage` around the wall-clock window, ms: a process waiting for a
 * core is not charged).
 */
export const requestRounds = async (manager, count, budget, rounds, timeAdd = timeWall) => {
  const quiet = []
  const compacting = []
  const adds = []
  const viewSizes = []
  const cpu = { quiet: [], compacting: [] }
  let call = 1_000_000
  for (let i = 0; i < rounds; i += 1) {
    const turn = syntheticTurn(count + i, call)
    call += turn.length - 2
    for (const message of turn) await timeAdd(() => manager.addMessage(message), adds)
    const before = manager.lastCompactionStats
    const startCpu = process.cpuUsage()
    const start = performance.now()
    const view = await manager.getMessagesForRequest({ tokenBudget: budget })
    const elapsed = performance.now() - start
    const used = process.cpuUsage(startCpu)
    viewSizes.push(view.length)
    const kind = JSON.stringify(before) !== JSON.stringify(manager.lastCompactionStats) ? 'compacting' : 'quiet'
    ;(kind === 'compacting' ? compacting : quiet).push(elapsed)
    cpu[kind].push((used.user + used.system) / 1000)
  }
  return { quiet, compacting, adds, viewSizes, cpu }
}
/** Awaits `call`, pushing its wall time (ms) to `times`. */
export const timeWall = async (call, times) => {
  const start = performance.now()
  await call()
  times.push(performance.now() - start)
}
/** A manager of `ContextManager` (any build's) holding `count` synthetic messages after one (compacting) request, as bench/manager.mjs primes it. */
export const primeManager = async (ContextManager, options, count, budget = 100_000) => {
  const manager = new ContextManager({}, options)
  await manager.setMessages(syntheticHistory(count))
  await manager.getMessagesForRequest({ tokenBudget: budget })
  return manager
}
