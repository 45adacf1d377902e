// The agent loop of test/runtime/agent-loop.ts (main entry only) bundled by esbuild for the
// browser with no externals, then run in real runtimes: headless Chromium (Debian's, through
// playwright-core) in a page and in a Web Worker, Deno and Bun (their npm packages, dev
// dependencies), and Node. Each run must keep every view paired and within its budget while the
// history compacts, let the listener and the factory call back into the manager, restore a
// snapshot, and spill with the default writer where the runtime has a file system (a file on
// disk) or keep the result whole where it has none.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { build, type BuildOptions } from 'esbuild'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RuntimeLoopReport } from './agent-loop.js'

const root = resolve(import.meta.dirname, '../..')
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const hasChromium = existsSync(CHROMIUM)
const DENO = resolve(root, 'node_modules/.bin/deno')
const BUN = resolve(root, 'node_modules/.bin/bun')
if (!hasChromium && process.env.CI) throw new Error(`CI is set but Chromium is missing at ${CHROMIUM}: .ci/run installs it with apt-get install -y chromium`)
if (process.env.CI && (!existsSync(DENO) || !existsSync(BUN))) throw new Error('CI is set but the deno or bun dev dependency is missing: npm ci installs them')

let work = ''
let esm = ''
let iife = ''

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'context-simple-runtimes-'))
  const common: BuildOptions & { write: false } = { entryPoints: [resolve(import.meta.dirname, 'agent-loop.ts')], bundle: true, platform: 'browser', write: false, logLevel: 'silent', target: 'es2022' }
  const [asModule, asScript] = await Promise.all([build({ ...common, format: 'esm' }), build({ ...common, format: 'iife', globalName: 'RuntimeLoop' })])
  esm = join(work, 'loop.mjs')
  writeFileSync(esm, asModule.outputFiles[0].contents)
  iife = asScript.outputFiles[0].text
})

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true })
})

/** The checks every runtime must pass; `files` says whether the runtime has a file system. */
const checkReport = (report: RuntimeLoopReport, files: boolean, spillDir: string): void => {
  expect(report.formats.map((format) => format.format)).toEqual(['anthropic', 'ai-sdk'])
  for (const format of report.formats) {
    expect(format.problems, `${report.runtime} ${format.format}`).toEqual([])
    expect(format.compactions).toBeGreaterThan(3)
    expect(format.listenerCalls).toBe(format.compactions)
    expect(format.factoryCalls).toBe(format.requests)
    expect(format.spilled).toBeGreaterThan(0)
    expect(format.maxViewTokens).toBeLessThanOrEqual(format.budget)
    expect(format.restoredViewEqual).toBe(true)
  }
  expect(report.windowOfGpt4o).toBe(128000)
  if (files) {
    expect(report.asyncLocalStorage).toBe(true)
    expect(report.defaultSpill.failures).toBe(0)
    expect(report.defaultSpill.pointer).toMatch(/^tool-result-\d{6}-[0-9a-f]{16}\.txt$/)
    expect(readdirSync(spillDir)).toContain(report.defaultSpill.pointer)
  } else {
    expect(report.asyncLocalStorage).toBe(false)
    expect(report.defaultSpill).toEqual({ failures: 1, pointer: null, wholeResultKept: true })
  }
}

/** Runs the ESM bundle with `command` (node, deno run, bun) in a process of its own; answers its report. */
const runProcess = (command: string, args: string[], name: string): { report: RuntimeLoopReport; spillDir: string } => {
  const spillDir = join(work, `${name}-spill`)
  const runner = join(work, `${name}-runner.mjs`)
  writeFileSync(runner, `import { runRuntimeLoop } from ${JSON.stringify(esm)}\nconsole.log(JSON.stringify(await runRuntimeLoop(${JSON.stringify(spillDir)})))\n`)
  const result = spawnSync(command, [...args, runner], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' } })
  if (result.status !== 0) throw new Error(`${command} exited ${result.status}: ${result.stderr}${result.error?.message ?? ''}`)
  return { report: JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as RuntimeLoopReport, spillDir }
}

describe('the agent loop bundled for the browser (main entry only)', () => {
  it('runs in Node', () => {
    const { report, spillDir } = runProcess(process.execPath, [], 'node')
    expect(report.runtime).toBe(`Node ${process.versions.node}`)
    checkReport(report, true, spillDir)
  })

  it.skipIf(!existsSync(DENO))('runs in Deno (npm package deno)', () => {
    const spillDir = join(work, 'deno-spill')
    const { report } = runProcess(DENO, ['run', `--allow-read=${work}`, `--allow-write=${spillDir}`], 'deno')
    expect(report.runtime).toMatch(/^Deno 2\./)
    checkReport(report, true, spillDir)
  })

  it.skipIf(!existsSync(BUN))('runs in Bun (npm package bun)', () => {
    const { report, spillDir } = runProcess(BUN, [], 'bun')
    expect(report.runtime).toMatch(/^Bun 1\./)
    checkReport(report, true, spillDir)
  })

  describe.skipIf(!hasChromium)('in headless Chromium', () => {
    let browser: Browser
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] })
    })
    afterAll(async () => {
      await browser?.close()
    })

    it('runs in a page', async () => {
      const page = await browser.newPage()
      const errors: string[] = []
      page.on('pageerror', (error) => void errors.push(error.message))
      const report = (await page.evaluate(`${iife}\nRuntimeLoop.runRuntimeLoop('/spill')`)) as RuntimeLoopReport
      expect(errors).toEqual([])
      expect(report.runtime).toMatch(/^page: .*Chrome\//)
      checkReport(report, false, '/spill')
    })

    it('runs in a Web Worker', async () => {
      const page = await browser.newPage()
      // the worker's source: the bundle, then a call that posts the report back
      const source = `${iife}\nRuntimeLoop.runRuntimeLoop('/spill').then((report) => postMessage(report), (error) => postMessage({ error: String((error && error.stack) || error) }))`
      const report = (await page.evaluate(`new Promise((resolve) => {
        const worker = new Worker(URL.createObjectURL(new Blob([${JSON.stringify(source)}], { type: 'text/javascript' })))
        worker.onmessage = (event) => resolve(event.data)
        worker.onerror = (event) => resolve({ error: event.message })
      })`)) as RuntimeLoopReport & { error?: string }
      expect(report.error).toBeUndefined()
      expect(report.runtime).toMatch(/^Web Worker: .*Chrome\//)
      checkReport(report, false, '/spill')
    })
  })
})
