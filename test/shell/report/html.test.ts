// The HTML page: self-contained (inline library, no URL that would load anything), the data it
// embeds reads back as the sections, titles are escaped, and the output is deterministic.
import { describe, expect, it } from 'vitest'
import { loadChartLibrary } from '../../../src/shell/report/chart-library.js'
import { renderHtmlReport, toFrontierPoint, type ReportAbout } from '../../../src/shell/report/html.js'
import { toReportSection } from '../../../src/shell/report/model.js'

const about: ReportAbout = { input: 'in/<odd>.jsonl', format: 'claude-code', configuration: 'recommended', budget: '60,000 tokens (--budget)', usage: 'simulated', generator: 'context-simple 0.0.0' }

const section = (title: string) =>
  toReportSection(
    {
      title,
      lines: [
        { op_index: 1, view: [{ role: 'user', content: 'hi' }], events: [], token_meter_stats: { estimated_tokens: 10, budget: 100 }, compaction_stats: null },
        { op_index: 3, view: [{ role: 'user', content: 'hi' }], events: [{ name: 'context:compaction', data: { strategy_level: 3, before_tokens: 90, after_tokens: 40 } }], token_meter_stats: { estimated_tokens: 90, budget: 100 }, compaction_stats: null },
      ],
      compactThreshold: 0.75,
      readings: [{ input_tokens: 12, cache_read_tokens: 0, cache_write_tokens: 12, output_tokens: 1 }, null],
      readingSource: 'recorded',
      prefixBreaks: [false, true],
      cumulativeCostUsd: [0.001, 0.002],
    },
    () => 5,
  )

describe('renderHtmlReport', () => {
  const library = loadChartLibrary()
  const sections = [section('first </script><b>'), section('second')]
  const html = renderHtmlReport(sections, about, library)

  it('inlines the chart library and its style, and references no URL', () => {
    expect(library.version).toMatch(/^\d+\.\d+\.\d+$/)
    expect(html).toContain(library.script)
    expect(html).toContain(library.style)
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]*\s(src|href)=/i)
    expect(html).not.toMatch(/@import|url\(\s*['"]?https?:/i)
    expect(html).toContain(`content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"`)
  })

  it('embeds the sections as JSON that reads back unchanged, with titles escaped in the markup', () => {
    const json = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)?.[1]
    expect(JSON.parse(json as string)).toEqual({ sections, frontiers: [] })
    expect(html).toContain('<h2>first &lt;/script&gt;&lt;b&gt;</h2>')
    expect(html).toContain('<code>in/&lt;odd&gt;.jsonl</code>')
    expect(html.match(/<\/script>/g)?.length).toBe(3)
  })

  it('renders a recall-against-cost chart holder and its table per frontier, before the sessions', () => {
    const frontier = { title: 'tau <b>', costLabel: 'relative input cost', unit: 'relative' as const, points: [{ label: 'recommended', cost: 721119.4, recall: 0.73, note: null }, { label: 'peer', cost: 933077, recall: 0.863, note: '26 failed' }] }
    const page = renderHtmlReport(sections, about, library, [frontier])
    expect(page.indexOf('id="frontier-0"')).toBeGreaterThan(0)
    expect(page.indexOf('id="frontier-0"')).toBeLessThan(page.indexOf('id="tokens-0"'))
    expect(page).toContain('<h2>tau &lt;b&gt;: needed-fact recall against relative input cost</h2>')
    expect(page).toContain('<tr><td>recommended</td><td>721,119</td><td>73.0 %</td><td></td></tr>')
    expect(page).toContain('<tr><td>peer</td><td>933,077</td><td>86.3 %</td><td>26 failed</td></tr>')
    const json = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(page)?.[1]
    expect(JSON.parse(json as string).frontiers).toEqual([frontier])
    const usd = renderHtmlReport([], about, library, [{ ...frontier, unit: 'usd', points: [toFrontierPoint('x', sections)] }])
    expect(usd).toMatch(/<tr><td>x<\/td><td>\$0\.[0-9]{4}<\/td>/)
  })

  it('shows the facts, one chart holder per chart with data, and the boundary table', () => {
    expect(html).toContain('<dt>compaction boundaries</dt><dd>1</dd>')
    expect(html).toContain('<dt>prompt-cache prefix breaks</dt><dd>1</dd>')
    expect(html).toContain('<dt>input cost (USD)</dt><dd>0.0020</dd>')
    for (const id of ['tokens-0', 'cache-0', 'cost-0', 'tokens-1', 'cache-1', 'cost-1']) expect(html).toContain(`id="${id}"`)
    expect(html).toContain('<tr><td>1</td><td>3</td><td>90</td><td>40</td></tr>')
  })

  it('is deterministic', () => {
    expect(renderHtmlReport(sections, about, library)).toBe(html)
  })
})
