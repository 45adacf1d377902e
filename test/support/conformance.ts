// Runs the conformance cases of fixtures/conformance through the pure replay fold and compares
// every output line with the expected one (docs/conformance.md rules).
import { createHash } from 'node:crypto'
import { readdirSync, existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { isRight } from 'fp-ts/lib/Either.js'
import { decodeConfig } from '../../src/core/codecs.js'
import { makeCachedEstimator } from '../../src/core/meter/estimate.js'
import { replayRecording } from '../../src/core/replay/replay.js'
import { DEFAULT_REPLAY_NOW, type Recording, type RecordingOp } from '../../src/core/replay/recording.js'
import { FIXTURES, fixturePath, readFixture } from './fixtures.js'

/** The conformance cases copied into the repository (docs/conformance.md). */
export const CONFORMANCE = resolve(FIXTURES, 'conformance')

export const listCases = (folder: 'generated' | 'sessions', pattern: RegExp = /./): string[] => {
  const dir = resolve(CONFORMANCE, folder)
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((name) => /\.recording\.jsonl(\.gz)?$/.test(name))
    .map((name) => name.replace(/\.recording\.jsonl(\.gz)?$/, ''))
    .filter((name) => pattern.test(name))
    .sort()
}

const readJsonl = (relative: string): unknown[] =>
  readFixture(relative)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))

/** A conformance recording, by its path under `fixtures/` (`conformance/generated/cal-00.recording.jsonl`). */
export const readRecording = (relative: string): Recording => {
  const rows = readJsonl(relative) as Array<Record<string, unknown>>
  let config: Record<string, unknown> = {}
  let now = DEFAULT_REPLAY_NOW
  if (rows.length > 0 && rows[0].type === 'recording') {
    config = (rows[0].config as Record<string, unknown>) ?? {}
    if (typeof rows[0].now === 'string') now = rows[0].now
    rows.shift()
  }
  return { config, now, ops: rows as unknown as RecordingOp[] }
}

const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']'
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort()
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical((value as Record<string, unknown>)[k])).join(',') + '}'
  }
  return JSON.stringify(value)
}

/** First difference between two JSON values, as a path, or null when equal (numbers by value). */
export const firstDifference = (actual: unknown, expected: unknown, path = ''): string | null => {
  if (typeof expected === 'number' && typeof actual === 'number') return actual === expected ? null : `${path}: ${actual} != ${expected}`
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: not an array`
    if (actual.length !== expected.length) return `${path}: length ${actual.length} != ${expected.length}`
    for (let i = 0; i < expected.length; i += 1) {
      const d = firstDifference(actual[i], expected[i], `${path}[${i}]`)
      if (d !== null) return d
    }
    return null
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: not an object (${JSON.stringify(actual)?.slice(0, 200)})`
    const a = actual as Record<string, unknown>
    const e = expected as Record<string, unknown>
    const keys = new Set([...Object.keys(a).filter((k) => a[k] !== undefined), ...Object.keys(e)])
    for (const key of keys) {
      const d = firstDifference(a[key], e[key], `${path}.${key}`)
      if (d !== null) return d
    }
    return null
  }
  return actual === expected ? null : `${path}: ${JSON.stringify(actual)?.slice(0, 300)} != ${JSON.stringify(expected)?.slice(0, 300)}`
}

/** Run one case; returns a list of differences (empty when it passes). */
export const runCase = (folder: 'generated' | 'sessions', name: string): string[] => {
  const recording = readRecording(`conformance/${folder}/${name}.recording.jsonl`)
  const expected = readJsonl(`conformance/${folder}/${name}.expected.jsonl`) as Array<Record<string, unknown>>
  const decoded = decodeConfig(recording.config)
  if (!isRight(decoded)) return [`config: ${decoded.left.message}`]
  const { lines } = replayRecording(recording, { config: decoded.right.config, estimate: makeCachedEstimator() })
  const problems: string[] = []
  if (lines.length !== expected.length) problems.push(`line count ${lines.length} != ${expected.length}`)
  for (let i = 0; i < Math.min(lines.length, expected.length); i += 1) {
    const actual = lines[i] as unknown as Record<string, unknown>
    const want = expected[i]
    const compare: Record<string, unknown> = {
      op_index: actual.op_index,
      events: actual.events,
      token_meter_stats: actual.token_meter_stats,
      compaction_stats: actual.compaction_stats,
      error: actual.error,
    }
    if ('view_sha256' in want) {
      const view = actual.view as unknown[] | null
      compare.view_messages = view === null ? null : view.length
      compare.view_sha256 = view === null ? null : createHash('sha256').update(canonical(view), 'utf8').digest('hex')
    } else {
      compare.view = actual.view
    }
    const d = firstDifference(JSON.parse(JSON.stringify(compare)), want)
    if (d !== null) {
      problems.push(`line ${i} (op ${String(want.op_index)}): ${d}`)
      break
    }
  }
  return problems
}
