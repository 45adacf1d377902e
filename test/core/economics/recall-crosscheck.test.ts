// Needed-fact recall checked against a second implementation written apart from
// src/core/economics/recall.ts: its own tokenizer (character runs instead of the regex), its own
// value walk, its own library-text stripping (string search instead of patterns) and a naive
// search over the joined history, on real recorded sessions (fixtures/sessions) replayed at
// budgets where every compaction form appears (truncation, removal, stubs, notice, replay,
// summaries).
import { describe, expect, it } from 'vitest'
import { toRecallFigures } from '../../../src/core/economics/recall.js'
import type { Message } from '../../../src/core/messages/message.js'
import type { Recording } from '../../../src/core/replay/recording.js'
import { presets } from '../../../src/core/presets.js'
import { loadPriceTable, loadWindowTable } from '../../../src/shell/economics-data.js'
import { prepareSessions, readInput, runSession, type RunOptions } from '../../../src/shell/cli/evaluate.js'
import { fixturePath } from '../../support/fixtures.js'

// ---- the second implementation ----------------------------------------------------------

const isAlnum = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
const isInner = (c: string): boolean => isAlnum(c) || '_.-/:@#'.includes(c)
const isLetter = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
const isDigit = (c: string): boolean => c >= '0' && c <= '9'

/** Each maximal run of token characters, trimmed to its first and last letter or digit. */
const candidates = (text: string): string[] => {
  const out: string[] = []
  let index = 0
  while (index < text.length) {
    if (!isInner(text[index])) {
      index += 1
      continue
    }
    let end = index
    while (end < text.length && isInner(text[end])) end += 1
    let first = index
    let last = end - 1
    while (first <= last && !isAlnum(text[first])) first += 1
    while (last >= first && !isAlnum(text[last])) last -= 1
    if (last - first + 1 >= 4) out.push(text.slice(first, last + 1))
    index = end
  }
  return out
}

const salient = (token: string): boolean => {
  if (token.length > 120) return false
  const chars = [...token]
  const letters = chars.some(isLetter)
  const digits = chars.some(isDigit)
  if (letters && digits) return true
  if (chars.every(isDigit)) return true
  for (let i = 0; i + 1 < chars.length; i += 1) {
    const [a, b] = [chars[i], chars[i + 1]]
    if ((isLetter(a) && (b === '_' || b === '/')) || ((a === '_' || a === '/') && isLetter(b))) return true
    if (a >= 'a' && a <= 'z' && b >= 'A' && b <= 'Z') return true
  }
  const dot = token.lastIndexOf('.')
  if (dot < 0) return false
  const ext = token.slice(dot + 1)
  return ext.length >= 1 && ext.length <= 5 && ext[0] >= 'a' && ext[0] <= 'z' && [...ext].every((c) => (c >= 'a' && c <= 'z') || isDigit(c))
}

const SKIP = ['id', 'tool_call_id', 'call_id', 'tool_use_id', 'toolCallId', 'approvalId', 'name', 'tool_name', 'toolName', 'type', 'role', 'signature', 'encrypted_content', 'redacted_thinking', 'metadata', 'mediaType', 'media_type']

const strip = (text: string): string => {
  if (text.startsWith('<system-reminder source="context-compaction">') || text === '[no result recorded]') return ''
  for (const source of ['context-replay', 'context-summary']) {
    const open = `<system-reminder source="${source}">\n`
    const close = '\n</system-reminder>'
    if (text.startsWith(open) && text.endsWith(close)) {
      let inner = text.slice(open.length, text.length - close.length)
      if (source === 'context-replay') inner = inner.slice(inner.indexOf('\n\n') + 2)
      return inner
    }
  }
  const stubOpen = '[User message compacted - original: "'
  if (text.startsWith(stubOpen) && text.endsWith('..."]')) return text.slice(stubOpen.length, text.length - '..."]'.length)
  let out = text
  if (out.startsWith('[truncated: ~')) {
    const close = out.indexOf('] ')
    out = out.slice(close + 2)
    const omitted = out.indexOf('\n...[')
    if (omitted >= 0) {
      const after = out.indexOf(' chars omitted]...\n', omitted)
      if (after >= 0) out = out.slice(0, omitted) + '\n' + out.slice(after + ' chars omitted]...\n'.length)
    }
  }
  const cut = out.lastIndexOf('\n[tool result cut at ingress: ')
  if (cut >= 0 && out.endsWith(']')) out = out.slice(0, cut)
  return out
}

const values = (value: unknown, answer: boolean, clean: boolean, out: string[]): void => {
  if (typeof value === 'string') {
    const text = clean ? strip(value) : value
    if (text === '' || (text.startsWith('data:') && text.includes(';base64,'))) return
    if (text.length >= 200 && /^[A-Za-z0-9+/=\r\n]+$/.test(text)) return
    const head = text.trimStart()
    if (head.startsWith('{') || head.startsWith('[')) {
      let parsed: unknown
      let ok = true
      try {
        parsed = JSON.parse(text)
      } catch {
        ok = false
      }
      if (ok) {
        values(parsed, answer, false, out)
        return
      }
    }
    out.push(text)
  } else if (Array.isArray(value)) value.forEach((item) => values(item, answer, clean, out))
  else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>
    if (answer && ['thinking', 'redacted_thinking', 'reasoning'].includes(record.type as string)) return
    const opaque = record.type === 'base64' || 'media_type' in record || 'mediaType' in record
    for (const [key, item] of Object.entries(record)) {
      if (SKIP.includes(key) || (key === 'data' && opaque)) continue
      if (answer && ['thinking', 'reasoning', 'reasoning_content', 'reasoningText', 'summary'].includes(key)) continue
      values(item, answer, clean, out)
    }
  }
}

const textOf = (message: Message, answer = false, clean = false): string => {
  const out: string[] = []
  values(message, answer, clean, out)
  return out.join('\n\n')
}

const naiveRecall = (recording: Recording, views: ReadonlyArray<ReadonlyArray<Message> | null>): Array<[number, number]> => {
  const result: Array<[number, number]> = []
  let history: Message[] = []
  const requests: number[] = []
  recording.ops.forEach((op, index) => op.op === 'get_messages_for_request' && requests.push(index))
  requests.forEach((opIndex, k) => {
    history = []
    for (const op of recording.ops.slice(0, opIndex)) {
      if (op.op === 'add_message') history.push(op.message)
      else if (op.op === 'set_messages') history = [...op.messages]
      else if (op.op === 'clear') history = []
    }
    const end = k + 1 < requests.length ? requests[k + 1] : recording.ops.length
    const answer = recording.ops.slice(opIndex + 1, end).flatMap((op) => (op.op === 'add_message' && op.message.role === 'assistant' ? [op.message] : []))
    const system = (m: Message): boolean => m.role === 'system' || m.role === 'developer'
    const older = history.slice(0, Math.max(0, history.length - 2))
    const olderText = older.filter((m) => !system(m)).map((m) => textOf(m)).join('\n\n')
    const keptText = [...history.filter(system), ...history.slice(Math.max(0, history.length - 2))].map((m) => textOf(m)).join('\n\n')
    const needed = new Set(candidates(answer.map((m) => textOf(m, true)).join('\n\n')).filter((token) => salient(token) && olderText.includes(token) && !keptText.includes(token)))
    const view = views[k]
    const viewText =
      view === null
        ? ''
        : view
            .filter((m) => {
              const source = (m.metadata as Record<string, unknown> | undefined)?.source
              return source !== 'context-compaction' && source !== 'context-repair'
            })
            .map((m) => textOf(m, false, true))
            .join('\n\n')
    result.push([needed.size, [...needed].filter((token) => viewText.includes(token)).length])
  })
  return result
}

// ---- the comparison on recorded sessions -------------------------------------------------

const options: RunOptions = { format: 'auto', budget: null, summarizer: 'extractive', usage: 'simulated', model: null, prices: loadPriceTable(), windows: loadWindowTable() }

const check = (file: string, budget: number, preset: 'reference' | 'recommended' | 'recommended-summary', settings: ReadonlyArray<readonly [string, unknown]>, sessions: number): { needed: number; recalled: number; lossy: number } => {
  const path = fixturePath(file)
  const run = { ...options, budget: { kind: 'budget' as const, tokens: budget } }
  const prepared = prepareSessions(path, readInput(path, 'auto'), { preset: presets[preset], file: null, settings }, run).slice(0, sessions)
  let needed = 0
  let recalled = 0
  let lossy = 0
  for (const session of prepared) {
    const views = runSession(session, run).lines.map((line) => line.view)
    const figures = toRecallFigures(session.original, views)
    const naive = naiveRecall(session.original, views)
    expect(figures.requests.map((item) => [item.needed, item.recalled])).toEqual(naive)
    needed += figures.needed_facts
    recalled += figures.recalled_facts
    lossy += figures.requests.filter((item) => item.recalled < item.needed).length
  }
  return { needed, recalled, lossy }
}

describe('needed-fact recall, second implementation', () => {
  it('agrees request by request on tau-bench trajectories at 4,500 tokens (reference, recommended, summary, stubs and replay on, the working set, eager projection, the early pass)', () => {
    const reference = check('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json', 4500, 'reference', [], 25)
    const summary = check('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json', 4500, 'recommended-summary', [['replay_last_user_on_compaction', true]], 25)
    // views with holes: the working set (src/core/compaction/working-set.ts) removes user messages and keeps old units between them
    const workingSet = check('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json', 4500, 'recommended', [['working_set_window', 2]], 25)
    // views with forms near the tail: eager tail projection (src/core/compaction/eager-projection.ts) shortens each JSON record after the next assistant message
    const eager = check('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json', 4500, 'recommended', [['tool_result_json_projection', 'handle_values'], ['tool_result_json_eager_after', 1], ['tool_result_json_eager_unit', 'turns']], 25)
    expect(eager.needed).toBeGreaterThan(50)
    // views of an early pass (src/core/compaction/early-pass.ts): compacted below compact_threshold, forms kept among the removals
    const early = check('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json', 4500, 'recommended', [['tool_result_json_projection', 'handle_values'], ['compact_early_threshold', 0.45], ['tool_result_json_projected_groups', 'early']], 25)
    expect(early.needed).toBeGreaterThan(50)
    expect(early.lossy).toBeGreaterThan(0)
    // the measure discriminates: facts are needed and some are lost
    for (const figures of [reference, summary, workingSet]) {
      expect(figures.needed).toBeGreaterThan(50)
      expect(figures.lossy).toBeGreaterThan(0)
      expect(figures.recalled).toBeLessThan(figures.needed)
    }
  })

  it('agrees request by request on Claude Code sessions at 20,000 and 40,000 tokens', () => {
    const tight = check('sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', 20000, 'reference', [], 1)
    expect(tight.needed).toBeGreaterThan(100)
    expect(tight.lossy).toBeGreaterThan(0)
    check('sessions/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', 40000, 'recommended', [['tool_result_spill_dir', '/spill']], 1)
    check('sessions/claude-code/tool_heavy.jsonl', 4000, 'reference', [], 1)
  })
})
