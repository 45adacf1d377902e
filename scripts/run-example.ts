// Runs one example of examples/ and prints what its run() returns, as JSON:
//   npm run example -- embedding
// The agent-loop examples talk to the local fake provider of the tests (127.0.0.1, a free port),
// started here; nothing leaves the machine.
import { existsSync, readdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { startFakeProvider } from '../test/support/fake-provider-server.js'

const name = (process.argv[2] ?? '').replace(/^examples\//, '').replace(/\.ts$/, '')
const path = resolve(import.meta.dirname, '..', 'examples', `${name}.ts`)
if (name === '' || !existsSync(path)) {
  const names = readdirSync(resolve(import.meta.dirname, '..', 'examples'))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3))
  console.error(`usage: npm run example -- NAME, where NAME is one of: ${names.join(', ')} (got "${name}")`)
  process.exit(2)
}
const example = (await import(pathToFileURL(path).href)) as { run: (options?: unknown) => Promise<unknown> }
const loop = /agents?-loop$/.test(name)
const server = loop ? await startFakeProvider({ toolRounds: 6, parallelCalls: 2, tool: 'read_file' }) : null
try {
  const result = await example.run(server === null ? undefined : { baseURL: server.url, tokenBudget: 4_000 })
  console.log(JSON.stringify(result, null, 2))
  if (server !== null) console.log(`fake provider: ${server.requests.length} requests, rule violations: ${server.requests.flatMap((request) => request.violations).length}`)
} finally {
  await server?.close()
}
