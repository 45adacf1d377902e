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

  it('counts the requests billed over the request budget (not E), as replay --usage simulated bills them', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'context-simple-demo-')), 'demo.html')
    const demo = await runCli(['demo', '--html', out, '--no-progress'])
    const over: number[] = []
    const overE: number[] = []
    for (const preset of DEMO_PRESETS) {
      const replay = await runCli(['replay', DEMO_SESSION, '--budget', '60000', '--usage', 'simulated', '--preset', preset, '--json', '--no-views'])
      expect(replay.code).toBe(0)
      const lines = replay.stdout.trim().split('\n').map((line) => JSON.parse(line) as { simulated_usage: { input_tokens: number; cache_write_tokens: number }; token_meter_stats: { budget: number } })
      // The contract's usage shape (SPEC 10.2): input_tokens holds the cache reads, cache writes are beside it.
      const billed = lines.map((line) => line.simulated_usage.input_tokens + line.simulated_usage.cache_write_tokens)
      over.push(billed.filter((input) => input > 60_000).length)
      overE.push(billed.filter((input, i) => input > lines[i].token_meter_stats.budget).length)
    }
    expect(demo.stdout).toMatch(new RegExp(`│ over budget\\s+│\\s+${over[0]} │\\s+${over[1]} │`))
    // The reference estimate misses the billed overhead: most requests are over; recommended none.
    expect(over[0]).toBeGreaterThan(100)
    expect(over[1]).toBe(0)
    // E is below the request budget, and on this session some reference requests are billed
    // between the two: the counts differ, so the row above is the count over the budget, not over E.
    expect(overE[0]).toBeGreaterThan(over[0])
    expect(demo.stdout).not.toMatch(new RegExp(`│ over budget\\s+│\\s+${overE[0]} │`))
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
