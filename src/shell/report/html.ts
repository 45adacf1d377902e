/**
 * Renders report sections into one self-contained HTML page: the data as JSON, the chart library
 * (uPlot) and a small script that hands the data to it, all inline; the page's content security
 * policy forbids every network request.
 */
import type { ChartLibrary } from './chart-library.js'
import type { ReportSection } from './model.js'

/**
 * What the page says about the run above the sections: the input file, its format, the
 * configuration label (a preset name, a `--config` path, or `defaults`), how the budget was set,
 * and the package version that wrote it.
 *
 * @example
 * const about: ReportAbout = { input: 'sessions/a.jsonl', format: 'claude-code', configuration: 'recommended', budget: '--budget 60000', usage: 'simulated', generator: 'context-simple 0.1.0' }
 */
export interface ReportAbout {
  readonly input: string
  readonly format: string
  readonly configuration: string
  readonly budget: string
  readonly usage: 'recorded' | 'simulated'
  readonly generator: string
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')

/** JSON that is safe inside a `<script>` element: no `<`, and no line separators JS rejects. */
const toScriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')

const formatTokens = (value: number): string => value.toLocaleString('en-US')

const renderFacts = (section: ReportSection): string => {
  const highest = section.boundaries.reduce((max, boundary) => Math.max(max, boundary.level), 0)
  const facts: Array<[string, string]> = [
    ['requests', String(section.requests)],
    ['compaction boundaries', String(section.boundaries.length)],
    ['highest compaction level', section.boundaries.length === 0 ? 'none' : String(highest)],
  ]
  if (section.prefixBreaks !== null) facts.push(['prompt-cache prefix breaks', String(section.prefixBreaks)])
  if (section.costUsd !== null) facts.push(['input cost (USD)', section.costUsd.toFixed(4)])
  if (section.neededFacts !== null && section.recalledFacts !== null) {
    const share = section.neededFacts === 0 ? 'no fact needed' : `${((100 * section.recalledFacts) / section.neededFacts).toFixed(1)} % (${section.recalledFacts} of ${section.neededFacts})`
    facts.push(['needed-fact recall', share])
    facts.push(['requests that lost facts', String(section.lossyRequests?.length ?? 0)])
  }
  if (section.failedRequests > 0) facts.push(['failed requests', String(section.failedRequests)])
  return `<dl class="facts">${facts.map(([name, value]) => `<div><dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd></div>`).join('')}</dl>`
}

const renderBoundaries = (section: ReportSection): string => {
  if (section.boundaries.length === 0) return '<p class="note">No compaction happened in this session at this budget.</p>'
  const rows = section.boundaries
    .map((boundary) => `<tr><td>${boundary.request}</td><td>${boundary.level}</td><td>${formatTokens(boundary.beforeTokens)}</td><td>${formatTokens(boundary.afterTokens)}</td></tr>`)
    .join('')
  return `<details><summary>Compaction boundaries (${section.boundaries.length})</summary><table class="boundaries"><thead><tr><th>request</th><th>level</th><th>tokens before</th><th>tokens after</th></tr></thead><tbody>${rows}</tbody></table></details>`
}

const renderLossy = (section: ReportSection): string => {
  const lossy = section.lossyRequests
  if (lossy === null || lossy.length === 0) return ''
  const rows = lossy
    .map((item) => `<tr><td>${item.request}</td><td>${item.needed}</td><td>${item.recalled}</td><td class="lost">${escapeHtml(item.lost.join(' '))}</td></tr>`)
    .join('')
  return `<details><summary>Requests that lost needed facts (${lossy.length})</summary><table class="boundaries lossy"><thead><tr><th>request</th><th>needed</th><th>recalled</th><th>lost (first 12)</th></tr></thead><tbody>${rows}</tbody></table></details>`
}

const LEGEND = `<section class="legend"><h2>How to read the charts</h2><ul>
<li><b>history (estimated)</b>: the whole stored conversation, counted by the library's token estimator.</li>
<li><b>view sent (estimated)</b>: what the library handed to the model for that request, same estimator; it drops at each compaction.</li>
<li><b>provider input</b>: the input tokens the provider reported. <i>recorded</i> readings describe what the original agent sent, not this replay's view; <i>simulated</i> readings apply a provider model to this replay's views.</li>
<li><b>budget</b>: the token budget of the request (the model window minus the output reserve and a safety margin, or the budget given).</li>
<li><b>compaction threshold</b>: budget × <code>compact_threshold</code>; above it, the library compacts.</li>
<li><b>compaction (level)</b>: a request where the library compacted the view; the point sits on the right-hand axis at the level reached (1 = old tool results shortened … 8 = only protected messages left).</li>
<li><b>cache read / cache write</b>: input tokens the provider served from its prompt cache / wrote into it.</li>
<li><b>prefix break</b>: a request whose view does not start with the previous view, so the provider's prompt cache cannot be reused from the start.</li>
<li><b>needed-fact recall</b>: per request, the share of the salient tokens (ids, paths, numbers) the real agent's next answer used, had read earlier in the history, and the view still holds in original content (docs/evaluation.md, "Needed-fact recall"); <b>lost facts</b> marks the requests whose view lacked some.</li>
<li><b>cumulative input cost</b>: what the input tokens of all requests so far cost at the model's prices (US dollars).</li>
</ul></section>`

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 6px}
.about{color:#57606a;margin:0 0 12px}.about code{color:#1b1f24}
.facts{display:flex;flex-wrap:wrap;gap:8px 24px;margin:6px 0 10px}.facts div{display:flex;gap:6px}.facts dt{color:#57606a}.facts dd{margin:0;font-weight:600}
.chart{margin:6px 0 14px}.note{color:#57606a}
table.lossy td.lost{text-align:left;font-family:ui-monospace,monospace}
table.boundaries{border-collapse:collapse;margin:6px 0}table.boundaries td,table.boundaries th{border:1px solid #d0d7de;padding:2px 8px;text-align:right}
.legend ul{padding-left:18px;margin:4px 0}.legend li{margin:2px 0}
section.session{border-top:1px solid #d0d7de;margin-top:16px}`

// Runs in the page: builds the charts with uPlot's API from the JSON data, and leaves the chart
// objects on window.contextSimpleReport for inspection (the browser test reads them).
const PAGE_SCRIPT = `(function () {
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var fmt = function (u, v) { return v == null ? '-' : Math.round(v).toLocaleString('en-US'); };
  var usd = function (u, v) { return v == null ? '-' : '$' + v.toFixed(4); };
  var line = function (label, stroke, extra) {
    var series = { label: label, stroke: stroke, width: 1.5, spanGaps: false, value: fmt, points: { show: false } };
    for (var key in extra) series[key] = extra[key];
    return series;
  };
  var marks = function (label, fill, scale, size) {
    return { label: label, scale: scale, stroke: fill, fill: fill, value: fmt, paths: function () { return null; }, points: { show: true, size: size, fill: fill, stroke: fill } };
  };
  var width = function (el) { return Math.max(480, Math.min(1400, el.clientWidth || 960)); };
  var made = [];
  data.sections.forEach(function (s, index) {
    var x = s.request;
    var entry = { title: s.title, requests: s.requests, tokens: null, cache: null, cost: null, recall: null };
    var tokensEl = document.getElementById('tokens-' + index);
    var series = [{ label: 'request' },
      line('history (estimated)', '#8c959f', {}),
      line('view sent (estimated)', '#0969da', { width: 2 }),
      line('provider input (' + s.readingSource + ')', '#bf3989', {}),
      line('budget', '#cf222e', { dash: [8, 4] }),
      line('compaction threshold', '#bc4c00', { dash: [3, 3] }),
      marks('compaction (level)', '#1a7f37', 'level', 9)];
    var columns = [x, s.historyTokens, s.viewTokens, s.providerInput, s.budget, s.threshold, s.boundaryLevel];
    if (s.prefixBreak) { series.push(marks('prefix break', '#8250df', 'break', 7)); columns.push(s.prefixBreak); }
    entry.tokens = new uPlot({
      title: 'Tokens per request', width: width(tokensEl), height: 340,
      scales: { x: { time: false }, level: { range: [0, 8.5] }, break: { range: [0, 10] } },
      axes: [{ label: 'request' }, { label: 'tokens', size: 70, values: function (u, vals) { return vals.map(function (v) { return v.toLocaleString('en-US'); }); } },
        { scale: 'level', side: 1, label: 'compaction level', grid: { show: false }, splits: function () { return [0, 2, 4, 6, 8]; } }],
      series: series
    }, columns, tokensEl);
    if (s.cacheRead) {
      var cacheEl = document.getElementById('cache-' + index);
      entry.cache = new uPlot({
        title: 'Prompt cache per request (' + s.readingSource + ')', width: width(cacheEl), height: 220,
        scales: { x: { time: false } },
        axes: [{ label: 'request' }, { label: 'tokens', size: 70 }],
        series: [{ label: 'request' }, line('cache read', '#1a7f37', {}), line('cache write', '#cf222e', {})]
      }, [x, s.cacheRead, s.cacheWrite], cacheEl);
    }
    if (s.cumulativeCostUsd) {
      var costEl = document.getElementById('cost-' + index);
      entry.cost = new uPlot({
        title: 'Cumulative input cost', width: width(costEl), height: 200,
        scales: { x: { time: false } },
        axes: [{ label: 'request' }, { label: 'USD', size: 70 }],
        series: [{ label: 'request' }, line('cumulative input cost', '#0969da', { value: usd })]
      }, [x, s.cumulativeCostUsd], costEl);
    }
    if (s.recall) {
      var recallEl = document.getElementById('recall-' + index);
      entry.recall = new uPlot({
        title: 'Needed-fact recall per request', width: width(recallEl), height: 200,
        scales: { x: { time: false }, pct: { range: [0, 1.05] }, lost: { range: [0, 20] } },
        axes: [{ label: 'request' }, { scale: 'pct', label: 'recall', size: 60, values: function (u, vals) { return vals.map(function (v) { return Math.round(v * 100) + ' %'; }); } }],
        series: [{ label: 'request' },
          { label: 'recall', scale: 'pct', stroke: '#1a7f37', fill: 'rgba(26,127,55,0.08)', width: 1.5, value: function (u, v) { return v == null ? '-' : (v * 100).toFixed(0) + ' %'; }, paths: function () { return null; }, points: { show: true, size: 5, fill: '#1a7f37', stroke: '#1a7f37' } },
          marks('lost facts', '#cf222e', 'lost', 8)]
      }, [x, s.recall, s.lostFacts], recallEl);
    }
    made.push(entry);
  });
  window.contextSimpleReport = { sections: made };
})();`

/**
 * The whole HTML page for `sections`: a header from `about`, one section per session (facts, the
 * token chart, the prompt-cache and cost charts when their data exists, the boundary table), and
 * a legend. Everything is inline (`library` included); the content security policy allows no
 * network request. Deterministic: the same input gives the same text.
 *
 * @example
 * const html = renderHtmlReport([section], about, loadChartLibrary())
 * html.startsWith('<!doctype html>') // => true
 */
export const renderHtmlReport = (sections: ReadonlyArray<ReportSection>, about: ReportAbout, library: ChartLibrary): string => {
  const body = sections
    .map((section, index) => {
      const cache = section.cacheRead === null ? '' : `<div class="chart" id="cache-${index}"></div>`
      const cost = section.cumulativeCostUsd === null ? '' : `<div class="chart" id="cost-${index}"></div>`
      const recall = section.recall === null ? '' : `<div class="chart" id="recall-${index}"></div>`
      return `<section class="session"><h2>${escapeHtml(section.title)}</h2>${renderFacts(section)}<div class="chart" id="tokens-${index}"></div>${cache}${cost}${recall}${renderBoundaries(section)}${renderLossy(section)}</section>`
    })
    .join('\n')
  const data = { sections }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>context-simple report: ${escapeHtml(about.input)}</title>
<style>${library.style}</style>
<style>${STYLE}</style>
</head>
<body>
<h1>context-simple report</h1>
<p class="about"><code>${escapeHtml(about.input)}</code> (${escapeHtml(about.format)}) · configuration <b>${escapeHtml(about.configuration)}</b> · budget ${escapeHtml(about.budget)} · provider readings ${escapeHtml(about.usage)} · ${escapeHtml(about.generator)} · charts by uPlot ${escapeHtml(library.version)}</p>
${body}
${LEGEND}
<script type="application/json" id="report-data">${toScriptJson(data)}</script>
<script>${library.script}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`
}
