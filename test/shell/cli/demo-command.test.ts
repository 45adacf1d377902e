// The demo (npm start) end to end, in-process: the side-by-side table with its legend, and the
// HTML report with one section per preset.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEMO_PRESETS, DEMO_SESSION } from '../../../src/shell/cli/demo-command.js'
import { runCli } from '../../support/cli.js'

const sectionsOf = (html: string): Array<{ title: string; requests: number; boundaries: unknown[]; prefixBreaks: number }> =>
  JSON.parse(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)?.[1] as string).sections

describe('context-simple demo', () => {
  it('compares the presets on the bundled session at a budget where it compacts, and writes the report', async () => {
    expect(existsSync(DEMO_SESSION)).toBe(true)
    const out = join(mkdtempSync(join(tmpdir(), 'context-simple-demo-')), 'demo.html')
    const { code, stdout, stderr } = await runCli(['demo', '--html', out, '--no-progress'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const sections = sectionsOf(readFileSync(out, 'utf8'))
    expect(sections.map((section) => section.title.split(' · ')[0])).toEqual([...DEMO_PRESETS])
    for (const section of sections) {
      expect(section.requests).toBe(140)
      expect(section.boundaries.length).toBeGreaterThan(0)
    }
    // the table: one column per preset, the compaction counts of the report, a legend line per row
    expect(stdout).toMatch(/│\s+│\s+reference │\s+recommended │/)
    const compactions = new RegExp(`│ compactions\\s+│\\s+${sections[0].boundaries.length} │\\s+${sections[1].boundaries.length} │`)
    expect(stdout).toMatch(compactions)
    expect(stdout).toMatch(new RegExp(`│ cache restarts\\s+│\\s+${sections[0].prefixBreaks} │\\s+${sections[1].prefixBreaks} │`))
    for (const row of ['requests', 'compactions', 'deepest compaction', 'cache restarts', 'input tokens', 'served from cache']) expect(stdout).toMatch(new RegExp(`^  ${row}\\s{2,}\\S`, 'm'))
    expect(stdout.trimEnd().endsWith(out)).toBe(true)
  })

  it('counts the requests over budget as compare counts overflows on the same session and presets', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'context-simple-demo-')), 'demo.html')
    const demo = await runCli(['demo', '--html', out, '--no-progress'])
    const compare = await runCli(['compare', DEMO_SESSION, '--budget', '60000', ...DEMO_PRESETS.flatMap((preset) => ['--preset', preset]), '--json'])
    expect(compare.code).toBe(0)
    const overflows = compare.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { overflows: number }).overflows)
    expect(overflows).toHaveLength(DEMO_PRESETS.length)
    expect(demo.stdout).toMatch(new RegExp(`│ over budget\\s+│\\s+${overflows[0]} │\\s+${overflows[1]} │`))
  })

  it('takes another budget, and rejects one that is not a number', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'context-simple-demo-')), 'demo.html')
    const small = await runCli(['demo', '--html', out, '--budget', '30000', '--no-progress'])
    expect(small.code).toBe(0)
    expect(small.stdout).toContain('a budget of 30,000 tokens')
    const bad = await runCli(['demo', '--html', out, '--budget', 'lots'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--budget lots: expected a whole number of tokens')
  })
})
