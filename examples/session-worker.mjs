// A worker thread that hosts one context-simple session (see examples/worker-threads.ts and
// docs/embedding.md, "Hosting many sessions"). It answers messages from its parent:
//   { id, op: 'start', config }                 a new session
//   { id, op: 'restore', snapshot }             a session moved here from another worker
//   { id, op: 'add', message }                  addMessage
//   { id, op: 'request', tokenBudget }          getMessagesForRequest: { view, compaction }
//   { id, op: 'snapshot' }                      the session as JSON text; the worker then drops it
// with { id, ok: true, result } or { id, ok: false, error }. In your project, import from
// 'context-simple'; this example imports the package as built in this repository (npm run build).
import { parentPort, threadId } from 'node:worker_threads'
import { ContextManager, fixedClock, silentLogger } from '../dist/index.js'

let manager = null
// A fixed clock only so that the example can compare views with an uninterrupted session byte for byte.
const options = { logger: silentLogger, clock: fixedClock('2026-12-01T00:00:00.000+00:00') }

const handle = async (message) => {
  switch (message.op) {
    case 'start':
      manager = new ContextManager(message.config, options)
      return { threadId }
    case 'restore':
      manager = await ContextManager.restore(JSON.parse(message.snapshot), options)
      return { threadId }
    case 'add':
      await manager.addMessage(message.message)
      return null
    case 'request': {
      const view = await manager.getMessagesForRequest({ tokenBudget: message.tokenBudget })
      return { view, compaction: manager.lastCompactionStats }
    }
    case 'snapshot': {
      const text = JSON.stringify(await manager.snapshot())
      manager = null // the session lives on wherever the snapshot is restored
      return text
    }
    default:
      throw new Error(`unknown op ${message.op}`)
  }
}

parentPort.on('message', (message) => {
  handle(message).then(
    (result) => parentPort.postMessage({ id: message.id, ok: true, result }),
    (error) => parentPort.postMessage({ id: message.id, ok: false, error: `${error.name}: ${error.message}` }),
  )
})
