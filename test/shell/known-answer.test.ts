// Known answers of the provider model (docs/evaluation.md, "The provider model"), on every
// bundled Claude Code session, counted with the gpt-tokenizer split (not the meter's estimator):
// - at a budget where the replay never compacts, the billed input equals the recorded input on
//   every request that has a reading and was not clamped;
// - at a budget where it compacts, a request is billed its reading + scale × (view − what was
//   sent): a shrunk view is billed less than the original request was.
import { readdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../src/core/config.js'
import { makeCachedEstimator } from '../../src/core/meter/estimate.js'
import { replayRecording } from '../../src/core/replay/replay.js'
import { applyBudgetOverride } from '../../src/shell/cli/options.js'
import { makeProviderCounter } from '../../src/shell/estimators.js'
import { loadRecordings } from '../../src/shell/importers/detect.js'
import { FIXTURES, readFixture } from '../support/fixtures.js'

const dir = resolve(FIXTURES, 'sessions/claude-code')
const files = readdirSync(dir).filter((name) => /\.jsonl(\.gz)?$/.test(name)).map((name) => name.replace(/\.gz$/, '')).sort()
const counter = makeProviderCounter()

const replayAt = (name: string, budget: number) =>
  loadRecordings(readFixture(`sessions/claude-code/${name}`), name, 'claude-code').recordings.map((raw) =>
    replayRecording(applyBudgetOverride(raw, { kind: 'budget', tokens: budget }), { config: DEFAULT_CONFIG, estimate: makeCachedEstimator() }, { usage: { mode: 'simulated', provider: 'anthropic', count: counter.count } }),
  )

describe('simulated usage, known answer', () => {
  it('the counter is the gpt-tokenizer split (a dev dependency), not the meter estimator', () => {
    expect(counter.name).toBe('gpt-tokenizer')
  })

  it.each(files)('%s: billed input = recorded input on every unclamped request with a reading', (name) => {
    for (const result of replayAt(name, 100_000_000)) {
      const compactions = result.lines.filter((line) => line.events.some((event) => event.name === 'context:compaction'))
      expect(compactions).toEqual([])
      expect(result.providerFit?.source).not.toBe('none')
      expect(result.providerFit!.scale).toBeGreaterThan(0.8)
      const checked = result.economics.filter((economics) => economics !== null && economics.recorded_input !== null && !economics.clamped)
      expect(checked.length).toBeGreaterThan(0)
      for (const economics of checked) {
        expect(economics!.split.input_tokens).toBe(economics!.recorded_input)
        expect(economics!.billed_view_tokens).toBe(economics!.billed_sent_tokens)
      }
      // every request the meter saw got the simulated reading, whose total is the simulated input
      for (const economics of result.economics) {
        expect(economics!.usage!.input_tokens + economics!.usage!.cache_write_tokens).toBe(economics!.split.input_tokens)
      }
    }
  })

  // A Codex rollout is a Responses recording: its items are stored as merged contract pieces
  // whose metadata keeps the native item (encrypted reasoning included), so the fit counts the
  // history as stored, and an item merged into the last piece adds its growth to what was sent.
  it('the Codex rollout with readings: never compacting, billed input = recorded input, scale near 1', () => {
    const name = 'guideai-cli-0.45-rollout-2025-10-06.jsonl'
    const results = loadRecordings(readFixture(`sessions/codex/${name}`), name, 'auto').recordings.map((raw) =>
      replayRecording(applyBudgetOverride(raw, { kind: 'budget', tokens: 100_000_000 }), { config: DEFAULT_CONFIG, estimate: makeCachedEstimator() }, { usage: { mode: 'simulated', provider: 'openai', count: counter.count } }),
    )
    expect(results).toHaveLength(1)
    const [result] = results
    expect(result.providerFit?.source).toBe('readings')
    // Counting the raw items (encrypted reasoning as text) had given 0.23 × count + 6,496.
    expect(result.providerFit!.scale).toBeGreaterThan(0.8)
    expect(result.providerFit!.scale).toBeLessThan(1.2)
    const checked = result.economics.filter((economics) => economics !== null && economics.recorded_input !== null && !economics.clamped)
    expect(checked.length).toBeGreaterThan(150)
    for (const economics of checked) {
      expect(economics!.billed_view_tokens).toBe(economics!.billed_sent_tokens)
      expect(economics!.split.input_tokens).toBe(economics!.recorded_input)
    }
  })

  it('the provider model is fitted on the session, not on the configuration under test: an ingress cap leaves the fit as it is', () => {
    const name = 'tool_heavy.jsonl'
    const fitWith = (config: typeof DEFAULT_CONFIG) =>
      loadRecordings(readFixture(`sessions/claude-code/${name}`), name, 'claude-code').recordings.map(
        (raw) => replayRecording(applyBudgetOverride(raw, { kind: 'budget', tokens: 100_000_000 }), { config, estimate: makeCachedEstimator() }, { usage: { mode: 'simulated', provider: 'anthropic', count: counter.count } }).providerFit,
      )
    const plain = fitWith(DEFAULT_CONFIG)
    expect(plain.every((fit) => fit?.source === 'readings')).toBe(true)
    expect(fitWith({ ...DEFAULT_CONFIG, tool_result_ingress_cap_bytes: 2_000 })).toEqual(plain)
  })

  it('the 3 MB session at a budget of 60,000: every compacted view is billed below its reading, by scale × what was cut', () => {
    const [result] = replayAt('4d5611e5-241a-462a-8d15-5122611a9569.jsonl', 60_000)
    const fit = result.providerFit!
    expect(fit.source).toBe('readings')
    const shrunk = result.economics.filter((economics) => economics !== null && economics.recorded_input !== null && !economics.clamped && economics.billed_view_tokens < economics.billed_sent_tokens)
    expect(shrunk.length).toBeGreaterThan(20)
    for (const economics of shrunk) {
      expect(economics!.split.input_tokens).toBeLessThan(economics!.recorded_input!)
      expect(economics!.split.input_tokens).toBe(economics!.recorded_input! + economics!.billed_view_tokens - economics!.billed_sent_tokens)
    }
  })
})
