/**
 * Renders report sections into one self-contained HTML page: the data as JSON, the chart library
 * (uPlot) and a small script that hands the data to it, all inline; the page's content security
 * policy forbids every network request.
 */
import type { ChartLibrary } from './chart-library.js'
import type { ReportSection } from './model.js'
import { countNoun } from '../count-noun.js'

/**
 * What the page says about the run above the sections: the input file, its format, the
 * configuration label (`configurationLabel`: the preset name, the `--config` path and each `--set`
 * joined by ` + `, or `defaults`), how the budget was set,
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

/**
 * One point of a recall-against-cost chart: a configuration or a peer, its input cost (in the
 * chart's unit, `FrontierChart.costLabel`), its needed-fact recall (0..1, null when nothing was
 * needed: not drawn) and an optional note shown beside it in the table (overflows, failures).
 *
 * @example
 * const point: FrontierPoint = { label: 'recommended', cost: 721119, recall: 0.73, note: null }
 */
export interface FrontierPoint {
  readonly label: string
  readonly cost: number
  readonly recall: number | null
  readonly note: string | null
}

/**
 * A recall-against-cost chart (docs/evaluation.md, "Retention against cost"): one point per
 * configuration and peer, over the same sessions.
 *
 * @example
 * const chart: FrontierChart = { title: 'tau-bench at 4,500', costLabel: 'relative input cost', unit: 'relative', points: [{ label: 'recommended', cost: 721119, recall: 0.73, note: null }] }
 */
export interface FrontierChart {
  readonly title: string
  readonly costLabel: string
  /** `relative`: relative cost units (whole numbers); `usd`: US dollars (4 decimals). */
  readonly unit: 'relative' | 'usd'
  readonly points: ReadonlyArray<FrontierPoint>
}

/**
 * The frontier point of one configuration over `sections` (all of them its own): the summed
 * input cost in US dollars (null when no section has a price) and the needed-fact recall over
 * all of them (null when nothing was needed).
 *
 * @example
 * toFrontierPoint('recommended', []) // => { label: 'recommended', cost: 0, recall: null, note: null }
 */
export const toFrontierPoint = (label: string, sections: ReadonlyArray<ReportSection>): FrontierPoint & { readonly cost: number } => {
  const needed = sections.reduce((sum, section) => sum + (section.neededFacts ?? 0), 0)
  const recalled = sections.reduce((sum, section) => sum + (section.recalledFacts ?? 0), 0)
  const failed = sections.reduce((sum, section) => sum + section.failedRequests, 0)
  return { label, cost: sections.reduce((sum, section) => sum + (section.costUsd ?? 0), 0), recall: needed === 0 ? null : recalled / needed, note: failed > 0 ? countNoun(failed, 'failed request') : null }
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
  if (section.overBudget !== null) {
    const unknown = section.overBudgetUnknown ?? 0
    facts.push(['requests over E', unknown === 0 ? String(section.overBudget) : `${section.overBudget} (unknown on ${unknown}: no recorded reading bills the view sent)`])
  }
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

const renderFrontier = (chart: FrontierChart, index: number): string => {
  const rows = chart.points
    .map((point) => `<tr><td>${escapeHtml(point.label)}</td><td>${chart.unit === 'usd' ? `$${point.cost.toFixed(4)}` : formatTokens(Math.round(point.cost))}</td><td>${point.recall === null ? '-' : `${(100 * point.recall).toFixed(1)} %`}</td><td>${escapeHtml(point.note ?? '')}</td></tr>`)
    .join('')
  return `<section class="frontier"><h2>${escapeHtml(chart.title)}: needed-fact recall against ${escapeHtml(chart.costLabel)}</h2><div class="chart" id="frontier-${index}"></div><table class="boundaries"><thead><tr><th>configuration</th><th>${escapeHtml(chart.costLabel)}</th><th>recall</th><th></th></tr></thead><tbody>${rows}</tbody></table></section>`
}

const LEGEND = `<section class="legend"><h2>How to read the charts</h2><ul>
<li><b>history (estimated)</b>: the whole stored conversation, counted by the library's token estimator.</li>
<li><b>view sent (estimated)</b>: what the library handed to the model for that request, same estimator; it drops at each compaction.</li>
<li><b>provider input</b>: the input tokens the provider reported. <i>recorded</i> readings describe what the original agent sent, not this replay's view; <i>simulated</i> readings apply a provider model to this replay's views.</li>
<li><b>budget</b>: the token budget of the request (the model window minus the output reserve and a safety margin, or the budget given).</li>
<li><b>requests over E</b>: requests whose provider input, as a bill of the view sent, is above the budget line E (the request budget less the notice reserve; <code>demo</code>'s <i>over budget</i> counts against the request budget itself); <i>unknown</i> where no bill of that view exists (recorded readings after this replay's first compaction changed the view, or a request without a reading; simulated readings bill every view).</li>
<li><b>compaction threshold</b>: budget × <code>compact_threshold</code>; above it, the library compacts.</li>
<li><b>compaction (level)</b>: a request where the library compacted the view; the point sits on the right-hand axis at the level reached (1 = old tool results shortened … 8 = only protected messages left).</li>
<li><b>cache read / cache write</b>: input tokens the provider served from its prompt cache / wrote into it.</li>
<li><b>prefix break</b>: a request whose view does not start with the previous view, so the provider's prompt cache cannot be reused from the start.</li>
<li><b>needed-fact recall</b>: per request, the share of the salient tokens (ids, paths, numbers) the real agent's next answer used, had read earlier in the history, and the view still holds in original content (docs/evaluation.md, "Needed-fact recall"); <b>lost facts</b> marks the requests whose view lacked some.</li>
<li><b>cumulative input cost</b>: what the input tokens of all requests so far cost at the model's prices (US dollars); drawn for a session whose model has a price (the session's own or <code>--model</code>, prices from <code>data/prices.json</code> or <code>--prices</code>).</li>
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
  // requests are whole numbers: tick steps of 1, 2, 5, 10, ... (uPlot's default steps include 0.5 and 2.5)
  var requestAxis = function () { return { label: 'request', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000] }; };
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
      axes: [requestAxis(), { label: 'tokens', size: 70, values: function (u, vals) { return vals.map(function (v) { return v.toLocaleString('en-US'); }); } },
        { scale: 'level', side: 1, label: 'compaction level', grid: { show: false }, splits: function () { return [0, 2, 4, 6, 8]; } }],
      series: series
    }, columns, tokensEl);
    if (s.cacheRead) {
      var cacheEl = document.getElementById('cache-' + index);
      entry.cache = new uPlot({
        title: 'Prompt cache per request (' + s.readingSource + ')', width: width(cacheEl), height: 220,
        scales: { x: { time: false } },
        axes: [requestAxis(), { label: 'tokens', size: 70 }],
        series: [{ label: 'request' }, line('cache read', '#1a7f37', {}), line('cache write', '#cf222e', {})]
      }, [x, s.cacheRead, s.cacheWrite], cacheEl);
    }
    if (s.cumulativeCostUsd) {
      var costEl = document.getElementById('cost-' + index);
      entry.cost = new uPlot({
        title: 'Cumulative input cost', width: width(costEl), height: 200,
        scales: { x: { time: false } },
        axes: [requestAxis(), { label: 'USD', size: 70 }],
        series: [{ label: 'request' }, line('cumulative input cost', '#0969da', { value: usd })]
      }, [x, s.cumulativeCostUsd], costEl);
    }
    if (s.recall) {
      var recallEl = document.getElementById('recall-' + index);
      entry.recall = new uPlot({
        title: 'Needed-fact recall per request', width: width(recallEl), height: 200,
        scales: { x: { time: false }, pct: { range: [0, 1.05] }, lost: { range: [0, 20] } },
        axes: [requestAxis(), { scale: 'pct', label: 'recall', size: 60, values: function (u, vals) { return vals.map(function (v) { return Math.round(v * 100) + ' %'; }); } }],
        series: [{ label: 'request' },
          { label: 'recall', scale: 'pct', stroke: '#1a7f37', fill: 'rgba(26,127,55,0.08)', width: 1.5, value: function (u, v) { return v == null ? '-' : (v * 100).toFixed(0) + ' %'; }, paths: function () { return null; }, points: { show: true, size: 5, fill: '#1a7f37', stroke: '#1a7f37' } },
          marks('lost facts', '#cf222e', 'lost', 8)]
      }, [x, s.recall, s.lostFacts], recallEl);
    }
    made.push(entry);
  });
  var COLORS = ['#0969da', '#1a7f37', '#8250df', '#bf3989', '#bc4c00', '#cf222e', '#57606a', '#116329', '#953800', '#0550ae'];
  var frontiers = [];
  (data.frontiers || []).forEach(function (f, index) {
    var el = document.getElementById('frontier-' + index);
    var pts = f.points.filter(function (p) { return p.recall != null; }).slice().sort(function (a, b) { return a.cost - b.cost; });
    var xs = pts.map(function (p) { return p.cost; });
    var low = Math.min.apply(null, xs), high = Math.max.apply(null, xs), pad = (high - low) * 0.08 || Math.max(1, high * 0.05);
    var floor = Math.max(0, Math.floor(Math.min.apply(null, pts.map(function (p) { return p.recall; })) * 10 - 0.5) / 10);
    // points at the same place share one label (e.g. two presets that send the same views)
    var names = pts.map(function (p, i) {
      var same = pts.filter(function (q) { return q.cost === p.cost && q.recall === p.recall; });
      if (same[0] !== p) return '';
      return same.map(function (q) { return q.label; }).join(', ') + (p.note ? ' (' + p.note + ')' : '');
    });
    var columns = [xs], series = [{ label: f.costLabel, value: fmt }];
    pts.forEach(function (p, i) {
      columns.push(xs.map(function (x, j) { return j === i ? p.recall : null; }));
      var color = COLORS[i % COLORS.length];
      series.push({ label: p.label, scale: 'pct', stroke: color, fill: color, value: function (u, v) { return v == null ? '-' : (v * 100).toFixed(1) + ' %'; }, paths: function () { return null; }, points: { show: true, size: 11, fill: color, stroke: color } });
    });
    var labels = function (u) {
      var ctx = u.ctx, ratio = window.devicePixelRatio || 1;
      ctx.save(); ctx.font = (12 * ratio) + 'px system-ui,sans-serif'; ctx.textBaseline = 'bottom';
      pts.forEach(function (p, i) {
        ctx.fillStyle = COLORS[i % COLORS.length];
        var x = u.valToPos(p.cost, 'x', true), y = u.valToPos(p.recall, 'pct', true);
        var right = x < u.bbox.left + u.bbox.width * 0.7;
        ctx.textAlign = right ? 'left' : 'right';
        if (names[i] !== '') ctx.fillText(names[i], x + (right ? 9 : -9) * ratio, y - 5 * ratio);
      });
      ctx.restore();
    };
    var plot = new uPlot({
      title: f.title + ': recall against ' + f.costLabel, width: width(el), height: 420,
      scales: { x: { time: false, range: [low - pad, high + pad] }, pct: { range: [floor, 1.02] } },
      axes: [{ label: f.costLabel, values: function (u, vals) { return vals.map(function (v) { return v.toLocaleString('en-US'); }); } },
        { scale: 'pct', label: 'needed-fact recall', size: 60, values: function (u, vals) { return vals.map(function (v) { return Math.round(v * 100) + ' %'; }); } }],
      series: series,
      hooks: { draw: [labels] }
    }, columns, el);
    frontiers.push({ title: f.title, plot: plot, points: pts, names: names });
  });
  // The chart as SVG, drawn from uPlot's own layout (plot box, scales, axis splits and values),
  // so the evaluation script can commit the same chart as a vector image.
  var esc = function (t) { return String(t).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'); };
  var frontierSvg = function (index) {
    var entry = frontiers[index], u = entry.plot, ratio = window.devicePixelRatio || 1;
    var left = u.bbox.left / ratio, top = u.bbox.top / ratio, w = u.bbox.width / ratio, h = u.bbox.height / ratio;
    var height = Math.round(top + h + 30 + 48);
    var out = ['<svg xmlns="http://www.w3.org/2000/svg" width="' + u.width + '" height="' + height + '" viewBox="0 0 ' + u.width + ' ' + height + '" font-family="system-ui,sans-serif" font-size="12">',
      '<rect width="100%" height="100%" fill="#fff"/>',
      '<text x="' + (u.width / 2) + '" y="18" text-anchor="middle" font-size="15" font-weight="600">' + esc(entry.title + ': recall against ' + u.series[0].label) + '</text>'];
    var oy = 30;
    out.push('<rect x="' + left + '" y="' + (top + oy) + '" width="' + w + '" height="' + h + '" fill="none" stroke="#d0d7de"/>');
    u.axes.forEach(function (axis, a) {
      var splits = axis._splits || [], values = axis._values || [], scale = a === 0 ? 'x' : 'pct';
      splits.forEach(function (v, k) {
        var pos = u.valToPos(v, scale);
        if (a === 0) {
          out.push('<line x1="' + (left + pos) + '" y1="' + (top + oy) + '" x2="' + (left + pos) + '" y2="' + (top + oy + h) + '" stroke="#eaeef2"/>');
          out.push('<text x="' + (left + pos) + '" y="' + (top + oy + h + 16) + '" text-anchor="middle" fill="#57606a">' + esc(values[k] == null ? '' : values[k]) + '</text>');
        } else {
          out.push('<line x1="' + left + '" y1="' + (top + oy + pos) + '" x2="' + (left + w) + '" y2="' + (top + oy + pos) + '" stroke="#eaeef2"/>');
          out.push('<text x="' + (left - 6) + '" y="' + (top + oy + pos + 4) + '" text-anchor="end" fill="#57606a">' + esc(values[k] == null ? '' : values[k]) + '</text>');
        }
      });
    });
    out.push('<text x="' + (left + w / 2) + '" y="' + (top + oy + h + 36) + '" text-anchor="middle">' + esc(u.series[0].label) + '</text>');
    out.push('<text transform="translate(14 ' + (top + oy + h / 2) + ') rotate(-90)" text-anchor="middle">needed-fact recall</text>');
    entry.points.forEach(function (p, i) {
      var x = left + u.valToPos(p.cost, 'x'), y = top + oy + u.valToPos(p.recall, 'pct'), color = COLORS[i % COLORS.length];
      var right = x < left + w * 0.7;
      out.push('<circle cx="' + x.toFixed(1) + '" cy="' + y.toFixed(1) + '" r="5" fill="' + color + '"><title>' + esc(p.label + ': ' + (p.recall * 100).toFixed(1) + ' %, ' + p.cost.toLocaleString('en-US')) + '</title></circle>');
      if (entry.names[i] !== '') out.push('<text x="' + (x + (right ? 9 : -9)).toFixed(1) + '" y="' + (y - 5).toFixed(1) + '" text-anchor="' + (right ? 'start' : 'end') + '" fill="' + color + '">' + esc(entry.names[i]) + '</text>');
    });
    out.push('</svg>');
    return out.join('\\n');
  };
  window.contextSimpleReport = { sections: made, frontiers: frontiers, frontierSvg: frontierSvg };
})();`

/**
 * The whole HTML page for `sections`: a header from `about`, the recall-against-cost charts of
 * `frontiers` (one point per configuration or peer, with a table of the figures), one section per
 * session (facts, the token chart, the prompt-cache and cost charts when their data exists, the
 * boundary table), and a legend. Everything is inline (`library` included); the content security
 * policy allows no network request. Deterministic: the same input gives the same text. In the
 * page, `window.contextSimpleReport.frontierSvg(i)` returns chart i as SVG text drawn from uPlot's
 * layout (scripts/evaluation.mjs writes it to docs/).
 *
 * @example
 * const io: CliIo = { stdout: () => {}, stderr: () => {}, isTty: false }
 * const flags: ReplayInputFlags = { format: 'auto', set: [], summarizer: 'recorded', progress: false, usage: 'simulated' }
 * const sections = toReportSections(await replayInput('fixtures/sessions/claude-code/short.jsonl', flags, io, false))
 * const about: ReportAbout = { input: 'short.jsonl', format: 'claude-code', configuration: 'reference', budget: 'recorded', usage: 'simulated', generator: 'context-simple' }
 * const html = renderHtmlReport(sections, about, loadChartLibrary())
 * html.startsWith('<!doctype html>') // => true
 */
export const renderHtmlReport = (sections: ReadonlyArray<ReportSection>, about: ReportAbout, library: ChartLibrary, frontiers: ReadonlyArray<FrontierChart> = []): string => {
  const body = sections
    .map((section, index) => {
      const cache = section.cacheRead === null ? '' : `<div class="chart" id="cache-${index}"></div>`
      const cost = section.cumulativeCostUsd === null ? '' : `<div class="chart" id="cost-${index}"></div>`
      const recall = section.recall === null ? '' : `<div class="chart" id="recall-${index}"></div>`
      return `<section class="session"><h2>${escapeHtml(section.title)}</h2>${renderFacts(section)}<div class="chart" id="tokens-${index}"></div>${cache}${cost}${recall}${renderBoundaries(section)}${renderLossy(section)}</section>`
    })
    .join('\n')
  const data = { sections, frontiers }
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
${frontiers.map(renderFrontier).join('\n')}
${body}
${LEGEND}
<script type="application/json" id="report-data">${toScriptJson(data)}</script>
<script>${library.script}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`
}
