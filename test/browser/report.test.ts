// The HTML report in a real browser: Debian's Chromium, headless, through playwright-core. For
// each input the report is written by the CLI, opened from file://, and checked through uPlot's
// own API (point counts, plot area) and the canvas pixels; a screenshot goes to test-output/.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { REPORT_INPUTS } from '../support/report-inputs.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const present = existsSync(CHROMIUM)
const OUTPUT = resolve(import.meta.dirname, '../../test-output')

if (!present && process.env.CI) throw new Error(`CI is set but Chromium is missing at ${CHROMIUM}: .ci/run installs it with apt-get install -y chromium`)
if (!present) console.warn(`\n*** SKIPPING the HTML report browser test: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH) ***\n`)

const run = runCli

interface ChartFacts {
  readonly title: string
  readonly requests: number
  readonly points: number
  readonly seriesLengths: number[]
  readonly plotPixel: number[]
  readonly inside: boolean
  readonly background: number[]
  readonly cachePoints: number | null
  readonly costPoints: number | null
  readonly recallPoints: number | null
  readonly recallValues: Array<number | null>
  /** The request-axis ticks uPlot placed on each chart of the section (requests are whole numbers). */
  readonly requestTicks: number[]
}

describe.skipIf(!present)('HTML report in headless Chromium', () => {
  let browser: BrowserContext
  let profile: string

  beforeAll(async () => {
    mkdirSync(OUTPUT, { recursive: true })
    profile = mkdtempSync(join(tmpdir(), 'context-simple-chromium-'))
    // a fresh profile per run (playwright passes it as --user-data-dir)
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    })
  })

  afterAll(async () => {
    await browser?.close()
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true })
  })

  /** Open `html` in Chromium, read every chart through uPlot's API, screenshot it, and check it. */
  const checkPage = async (html: string, name: string, requestsPrinted: number): Promise<ChartFacts[]> => {
    const page = await browser.newPage()
    const requested: string[] = []
    page.on('request', (request) => void requested.push(request.url()))
    const errors: string[] = []
    page.on('pageerror', (error) => void errors.push(error.message))
    await page.goto(pathToFileURL(html).href)
    await page.waitForFunction(() => (globalThis as unknown as { contextSimpleReport?: unknown }).contextSimpleReport !== undefined)

    const charts = await page.evaluate((): ChartFacts[] => {
      type Plot = {
        data: Array<ArrayLike<number | null>>
        bbox: { left: number; top: number; width: number; height: number }
        ctx: { getImageData: (x: number, y: number, width: number, height: number) => { data: ArrayLike<number> } }
        valToPos: (value: number, scale: string, canvasPixels?: boolean) => number
        axes: Array<{ _splits?: number[] }>
      }
      const report = (globalThis as unknown as { contextSimpleReport: { sections: Array<{ title: string; requests: number; tokens: Plot; cache: Plot | null; cost: Plot | null; recall: Plot | null }> } }).contextSimpleReport
      return report.sections.map((section) => {
        const plot = section.tokens
        // the view line at a request in the middle of the session: pixels the chart must have drawn
        const view = plot.data[2]
        let index = Math.floor(view.length / 2)
        while (index < view.length - 1 && view[index] === null) index += 1
        const x = Math.round(plot.valToPos(plot.data[0][index] as number, 'x', true))
        const y = Math.round(plot.valToPos(view[index] as number, 'y', true))
        const inside = x >= plot.bbox.left && x <= plot.bbox.left + plot.bbox.width && y >= plot.bbox.top && y <= plot.bbox.top + plot.bbox.height
        const around = plot.ctx.getImageData(x - 2, y - 2, 5, 5).data
        // the most opaque pixel of a 5x5 patch around the point (anti-aliasing softens single pixels)
        let strongest = [0, 0, 0, 0]
        for (let offset = 0; offset < around.length; offset += 4) {
          if (around[offset + 3] > strongest[3]) strongest = [around[offset], around[offset + 1], around[offset + 2], around[offset + 3]]
        }
        const corner = plot.ctx.getImageData(0, 0, 1, 1).data
        return {
          title: section.title,
          requests: section.requests,
          points: plot.data[0].length,
          seriesLengths: plot.data.map((column) => column.length),
          plotPixel: strongest,
          inside,
          background: [corner[0], corner[1], corner[2], corner[3]],
          cachePoints: section.cache === null ? null : section.cache.data[0].length,
          costPoints: section.cost === null ? null : section.cost.data[0].length,
          recallPoints: section.recall === null ? null : section.recall.data[0].length,
          recallValues: section.recall === null ? [] : Array.from(section.recall.data[1]),
          requestTicks: [section.tokens, section.cache, section.cost, section.recall].flatMap((chart) => (chart === null ? [] : (chart.axes[0]._splits ?? []))),
        }
      })
    })

    mkdirSync(OUTPUT, { recursive: true })
    await page.screenshot({ path: join(OUTPUT, `report-${name}.png`), fullPage: false })
    await page.close()

    expect(errors).toEqual([])
    expect(requested).toEqual([pathToFileURL(html).href])
    expect(charts.length).toBeGreaterThan(0)
    expect(charts.reduce((sum, chart) => sum + chart.points, 0)).toBe(requestsPrinted)
    for (const chart of charts) {
      expect(chart.points).toBe(chart.requests)
      expect(new Set(chart.seriesLengths)).toEqual(new Set([chart.requests]))
      if (chart.cachePoints !== null) expect(chart.cachePoints).toBe(chart.requests)
      if (chart.costPoints !== null) expect(chart.costPoints).toBe(chart.requests)
      // every section charts needed-fact recall per request: fractions in [0, 1] or gaps
      expect(chart.recallPoints).toBe(chart.requests)
      for (const value of chart.recallValues) if (value !== null) expect(value >= 0 && value <= 1).toBe(true)
      // the request axis ticks whole requests only (an 8-request session had ticks at 0.5, 1.5, ...)
      expect(chart.requestTicks.length).toBeGreaterThan(0)
      expect(chart.requestTicks.filter((tick) => !Number.isInteger(tick))).toEqual([])
      // drawn: inside the plot area, on the view line, the canvas is not background (transparent)
      expect(chart.inside).toBe(true)
      expect(chart.background).toEqual([0, 0, 0, 0])
      expect(chart.plotPixel[3]).toBeGreaterThan(128)
      expect(chart.plotPixel).not.toEqual(chart.background)
    }
    return charts
  }

  /**
   * The recall-against-cost chart of `html`: one uPlot series per point, each drawn inside the
   * plot area where its cost and recall put it, and the SVG the page derives from uPlot's layout
   * holds one circle per point at the same place (to the pixel) with its label.
   */
  const checkFrontier = async (html: string, labels: string[]): Promise<void> => {
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (error) => void errors.push(error.message))
    await page.goto(pathToFileURL(html).href)
    await page.waitForFunction(() => (globalThis as unknown as { contextSimpleReport?: unknown }).contextSimpleReport !== undefined)
    const facts = await page.evaluate(() => {
      type Plot = {
        data: Array<ArrayLike<number | null>>
        series: Array<{ label: string }>
        bbox: { left: number; top: number; width: number; height: number }
        ctx: { getImageData: (x: number, y: number, width: number, height: number) => { data: ArrayLike<number> } }
        valToPos: (value: number, scale: string, canvasPixels?: boolean) => number
      }
      const report = (globalThis as unknown as { contextSimpleReport: { frontiers: Array<{ plot: Plot; points: Array<{ label: string; cost: number; recall: number }> }>; frontierSvg: (index: number) => string } }).contextSimpleReport
      const { plot, points } = report.frontiers[0]
      const drawn = points.map((point) => {
        const x = Math.round(plot.valToPos(point.cost, 'x', true))
        const y = Math.round(plot.valToPos(point.recall, 'pct', true))
        const patch = plot.ctx.getImageData(x - 2, y - 2, 5, 5).data
        let alpha = 0
        for (let offset = 3; offset < patch.length; offset += 4) alpha = Math.max(alpha, patch[offset])
        const inside = x >= plot.bbox.left && x <= plot.bbox.left + plot.bbox.width && y >= plot.bbox.top && y <= plot.bbox.top + plot.bbox.height
        return { label: point.label, alpha, inside, cssX: plot.valToPos(point.cost, 'x') + plot.bbox.left / ((globalThis as unknown as { devicePixelRatio?: number }).devicePixelRatio || 1) }
      })
      return { labels: plot.series.slice(1).map((series) => series.label), columns: plot.data.length, drawn, svg: report.frontierSvg(0) }
    })
    await page.close()
    expect(errors).toEqual([])
    expect([...facts.labels].sort()).toEqual([...labels].sort())
    expect(facts.columns).toBe(labels.length + 1)
    for (const point of facts.drawn) {
      expect(point.inside, point.label).toBe(true)
      expect(point.alpha, point.label).toBeGreaterThan(128)
    }
    expect(facts.svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
    const circles = [...facts.svg.matchAll(/<circle cx="([0-9.]+)"/g)].map((match) => Number(match[1]))
    expect(circles.length).toBe(labels.length)
    for (const point of facts.drawn) expect(circles.some((cx) => Math.abs(cx - point.cssX) < 0.1), point.label).toBe(true)
    for (const label of labels) expect(facts.svg).toMatch(new RegExp(`>([^<]*, )?${label}(, [^<]*)?( \\([^<]*\\))?</text>`))
  }

  it.each(REPORT_INPUTS)('renders the report of $name with one point per request and a drawn plot', async ({ name, file, flags, priced }) => {
    const html = join(OUTPUT, `report-${name}.html`)
    const { code, stdout, stderr } = await run(['report', file, '--html', html, '--no-progress', ...flags])
    // only the CLI's warnings and notes (a Codex rollout without token_count lines has a note: no recorded usage, no window)
    expect(stderr.split('\n').filter((line) => line !== '' && !line.startsWith('warning: ') && !line.startsWith('note: '))).toEqual([])
    expect(code).toBe(0)
    const charts = await checkPage(html, name, Number(/(\d+) requests\)/.exec(stdout)?.[1]))
    // a known model (the session's own, or --model) has a price: the cost chart is drawn
    expect(charts.map((chart) => chart.costPoints)).toEqual(charts.map((chart) => (priced ? chart.requests : null)))
  })

  it('renders the demo page (npm start): both presets, one point per request', async () => {
    const html = join(OUTPUT, 'demo.html')
    const { code, stdout } = await run(['demo', '--html', html, '--no-progress'])
    expect(code).toBe(0)
    const requests = Number(/session \((\d+) requests/.exec(stdout)?.[1])
    expect(requests).toBeGreaterThan(0)
    const charts = await checkPage(html, 'demo', 2 * requests)
    // the bundled session's model has a price: both sections draw the cumulative cost
    expect(charts.map((chart) => chart.costPoints)).toEqual([requests, requests])
    await checkFrontier(html, ['reference', 'recommended'])
  })
})
