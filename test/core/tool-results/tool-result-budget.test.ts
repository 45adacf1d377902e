// Unit tests for src/core/tool-results/tool-result-budget.ts: budget resolution, head / head_tail shapes and the
// spill pointer of SPEC 11 (B-TB-1..8, B-SP-1..4), the exact examples of 11.2 and 11.5, pathlib
// normalization, and the write_spill / spill_written / spill_failed round trip through the reducer.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, type Config } from '../../../src/core/config.js'
import { estimateOne } from '../../../src/core/meter/estimate.js'
import type { Message } from '../../../src/core/messages/message.js'
import {
  isExemptToolResult,
  normalizeSpillDirectory,
  resolveToolResultBudget,
  toContentDigest,
  toSpillPath,
  toToolName,
  truncateToolResult,
  withoutSpillPointers,
} from '../../../src/core/tool-results/tool-result-budget.js'
import { NOW, WORKED_EXAMPLE, effectsOf, fold, hookNames, request, result, stepFor, withMessages, workedExampleTurns } from '../../support/core.js'

const sha16 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16)

const truncate = (message: Message, config: Partial<Config> = {}, toolNames: Readonly<Record<string, string>> = {}) =>
  truncateToolResult(message, { ...DEFAULT_CONFIG, ...config }, toolNames)

describe('truncateToolResult (SPEC 11.2)', () => {
  it('B-TB-1: default truncation of 5,000 A', () => {
    const message = result('c1', 'A'.repeat(5000))
    const { message: truncated, spill } = truncate(message)
    expect(truncated).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: '[truncated: ~1,250 tokens - call tool again if needed] ' + 'A'.repeat(250) + '...',
      _truncated: true,
      _original_tokens: 1250,
    })
    expect(Object.keys(truncated)).toEqual(['role', 'tool_call_id', 'content', '_truncated', '_original_tokens'])
    expect(spill).toBeNull()
    expect(message.content).toBe('A'.repeat(5000))
  })

  it('B-TB-2: a result at or under its budget, non-string content, or missing content is returned unchanged', () => {
    const cases: Message[] = [
      result('c1', 'A'.repeat(250)),
      result('c1', [{ type: 'text', text: 'A'.repeat(5000) }]),
      result('c1', null),
      result('c1', 12345),
      { role: 'tool', tool_call_id: 'c1' },
      result('c1', '😀'.repeat(250)),
    ]
    for (const message of cases) expect(truncate(message)).toEqual({ message, spill: null })
    expect(truncate(result('c1', 'A'.repeat(251))).message.content).toBe('[truncated: ~62 tokens - call tool again if needed] ' + 'A'.repeat(250) + '...')
  })

  it('counts and slices code points', () => {
    const content = '😀'.repeat(300)
    expect(truncate(result('c1', content)).message).toMatchObject({
      content: '[truncated: ~75 tokens - call tool again if needed] ' + '😀'.repeat(250) + '...',
      _original_tokens: 75,
    })
  })

  it('B-TB-3: a token budget keeps 4 × tokens characters in head shape with the legacy header', () => {
    expect(truncate(result('c1', 'B'.repeat(1000)), { tool_result_budget_tokens: 100 }).message.content).toBe(
      '[truncated: ~250 tokens - call tool again if needed] ' + 'B'.repeat(400) + '...',
    )
    expect(truncate(result('c1', 'B'.repeat(400)), { tool_result_budget_tokens: 100 }).message.content).toBe('B'.repeat(400))
  })

  it('B-TB-4: head_tail keeps ⌊b/2⌋ and b − ⌊b/2⌋ characters around the omitted marker (SPEC 11.2 examples)', () => {
    const content = Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('')
    expect(truncate(result('c1', content), { tool_result_budget_tokens: 100, tool_result_shape: 'head_tail' }).message.content).toBe(
      '[truncated: ~2,500 tokens - call tool again if needed] ' + content.slice(0, 200) + '\n...[9,600 chars omitted]...\n' + content.slice(9800),
    )
    const alphabet = 'abcdefghij'.repeat(10)
    expect(truncate(result('c1', alphabet), { tool_result_budget_tokens: 1, tool_result_shape: 'head_tail' }).message.content).toBe(
      '[truncated: ~25 tokens - call tool again if needed] ab\n...[96 chars omitted]...\nij',
    )
  })

  it('B-TB-5: head_tail without any token budget keeps the legacy head-only text', () => {
    const message = result('c1', 'A'.repeat(5000))
    expect(truncate(message, { tool_result_shape: 'head_tail' })).toEqual(truncate(message))
  })

  it('a negative truncate_chars slices like Python and always truncates', () => {
    expect(truncate(result('c1', 'abcdefgh'), { truncate_chars: -3 }).message.content).toBe('[truncated: ~2 tokens - call tool again if needed] abcde...')
  })

  it('D-4: a result barely over the budget can grow', () => {
    const message = result('c1', 'x'.repeat(260))
    expect(estimateOne(truncate(message).message)).toBeGreaterThan(estimateOne(message))
  })

  it('exempt results are returned unchanged', () => {
    const message = result('c1', 'A'.repeat(5000), { name: 'load_skill' })
    expect(truncate(message, { tool_result_exempt_tools: ['load_skill'] })).toEqual({ message, spill: null })
    expect(isExemptToolResult(message, { ...DEFAULT_CONFIG, tool_result_exempt_tools: ['load_skill'] }, {})).toBe(true)
    expect(isExemptToolResult(result('c1', 'x'), { ...DEFAULT_CONFIG, tool_result_exempt_tools: ['load_skill'] }, {})).toBe(false)
  })
})

describe('tool names and per-tool budgets (SPEC 11.1, 11.4)', () => {
  const config: Config = { ...DEFAULT_CONFIG, tool_result_budget_by_tool: { grep: 10 }, tool_result_budget_tokens: 100 }
  const names = { c1: 'grep', c2: 'cat' }

  it('toToolName: name, then metadata.tool_name, then the harvested call id, else null', () => {
    expect(toToolName(result('c2', 'x', { name: 'grep', metadata: { tool_name: 'other' } }), names)).toBe('grep')
    expect(toToolName(result('c2', 'x', { name: '', metadata: { tool_name: 'grep' } }), names)).toBe('grep')
    expect(toToolName(result('c1', 'x', { metadata: { tool_name: '' } }), names)).toBe('grep')
    expect(toToolName(result('c9', 'x'), names)).toBeNull()
    expect(toToolName(result('c1', 'x', { name: 7 }), {})).toBeNull()
  })

  it('B-TB-6: per-tool budgets win over the global budget; unresolved names use the global budget', () => {
    expect(resolveToolResultBudget(result('c1', 'x'), config, names)).toEqual({ budgetChars: 40, shape: 'head' })
    expect(resolveToolResultBudget(result('c9', 'x', { metadata: { tool_name: 'grep' } }), config, names)).toEqual({ budgetChars: 40, shape: 'head' })
    expect(resolveToolResultBudget(result('c2', 'x'), config, names)).toEqual({ budgetChars: 400, shape: 'head' })
    expect(resolveToolResultBudget(result('c9', 'x'), config, names)).toEqual({ budgetChars: 400, shape: 'head' })
    expect(resolveToolResultBudget(result('c1', 'x'), { ...config, tool_result_shape: 'head_tail' }, names)).toEqual({ budgetChars: 40, shape: 'head_tail' })
    const long = 'G'.repeat(1000)
    expect(truncateToolResult(result('c1', long), config, names).message.content).toBe('[truncated: ~250 tokens - call tool again if needed] ' + 'G'.repeat(40) + '...')
  })

  it('B-TB-7: with only per-tool budgets, other tools get the legacy text byte for byte', () => {
    const perToolOnly: Config = { ...DEFAULT_CONFIG, tool_result_budget_by_tool: { grep: 10 }, tool_result_shape: 'head_tail' }
    const other = result('c2', 'Q'.repeat(5000))
    expect(truncateToolResult(other, perToolOnly, names)).toEqual(truncateToolResult(other, DEFAULT_CONFIG, {}))
    expect(resolveToolResultBudget(other, perToolOnly, names)).toEqual({ budgetChars: 250, shape: 'head' })
  })

  it('B-TB-6/8: through the reducer the harvested call id selects the per-tool budget', () => {
    const step = stepFor({ ...WORKED_EXAMPLE, tool_result_budget_by_tool: { read_file: 2 } })
    const state = withMessages(step, workedExampleTurns())
    expect(state.toolNames).toEqual({ t0: 'read_file', t1: 'read_file', t2: 'read_file', t3: 'read_file', t4: 'read_file', t5: 'read_file', t6: 'read_file', t7: 'read_file' })
    const next = step(state, request())
    expect(next.view?.[2].content).toBe('[truncated: ~200 tokens - call tool again if needed] xxxxxxxx...')
  })
})

describe('call ids named like Object.prototype members (SPEC 17.9)', () => {
  it('an exempt tool whose call id is "__proto__" (or "constructor") is never truncated', () => {
    for (const id of ['__proto__', 'constructor', 'toString']) {
      const step = stepFor({ max_tokens: 400, compaction_notice_enabled: false, protected_tool_results: 0, protected_recent: 1, tool_result_exempt_tools: ['load_skill'] })
      const history: Message[] = [
        { role: 'user', content: 'load it' },
        { role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: 'load_skill', arguments: '{}' } }] },
        result(id, 'S'.repeat(4000)),
        { role: 'user', content: 'go on' },
      ]
      const state = withMessages(step, history)
      expect(Object.getOwnPropertyDescriptor(state.toolNames, id)?.value).toBe('load_skill')
      expect(toToolName(result(id, 'x'), state.toolNames)).toBe('load_skill')
      const next = step(state, request())
      expect(next.view?.find((message) => message.role === 'tool')?.content).toBe('S'.repeat(4000))
      expect(next.state.compaction.sticky.truncated.size).toBe(0)
    }
  })
})

describe('spill pointers (SPEC 11.5)', () => {
  it('the exact example: /tmp/spillx, _seq 42, head_tail with a 3-token budget', () => {
    const content = 'abcdefghij'.repeat(1000) + 'é'
    const message = result('c1', content, { metadata: { _seq: 42 } })
    const { message: truncated, spill } = truncate(message, { tool_result_budget_tokens: 3, tool_result_shape: 'head_tail', tool_result_spill_dir: '/tmp/spillx' })
    const path = '/tmp/spillx/tool-result-000042-2f6b706c271653dd.txt'
    expect(truncated.content).toBe(`[truncated: ~2,500 tokens - read ${path} for the full result] abcdef\n...[9,989 chars omitted]...\nfghijé`)
    expect(spill).toEqual({ directory: '/tmp/spillx', path, content })
    expect(sha16(content)).toBe('2f6b706c271653dd')
  })

  it('digest: first 16 hex digits of SHA-256 over UTF-8, lone surrogates as ?', () => {
    expect(toContentDigest('abc')).toBe('ba7816bf8f01cfea')
    expect(toContentDigest('é😀')).toBe(sha16('é😀'))
    expect(toContentDigest('a\ud800b')).toBe(sha16('a?b'))
    expect(toContentDigest('a\udc00')).toBe(sha16('a?'))
  })

  it('file names pad _seq to at least 6 digits; without an integer _seq there is no seq part', () => {
    const digest = sha16('body')
    expect(toSpillPath('/d', 42, 'body')).toBe(`/d/tool-result-000042-${digest}.txt`)
    expect(toSpillPath('/d', 0, 'body')).toBe(`/d/tool-result-000000-${digest}.txt`)
    expect(toSpillPath('/d', 1_234_567, 'body')).toBe(`/d/tool-result-1234567-${digest}.txt`)
    expect(toSpillPath('/d', undefined, 'body')).toBe(`/d/tool-result-${digest}.txt`)
    expect(toSpillPath('/d', '42', 'body')).toBe(`/d/tool-result-${digest}.txt`)
    expect(toSpillPath('/d', 4.5, 'body')).toBe(`/d/tool-result-${digest}.txt`)
    const { spill } = truncate(result('c1', 'body'.repeat(100)), { tool_result_spill_dir: '/d' })
    expect(spill?.path).toBe(`/d/tool-result-${sha16('body'.repeat(100))}.txt`)
  })

  it('directories are normalized the way pathlib prints them', () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ['/tmp/spill', '/tmp/spill'],
      ['/tmp//spill/./', '/tmp/spill'],
      ['/tmp/spill/', '/tmp/spill'],
      ['.', ''],
      ['./', ''],
      ['./spill/.', 'spill'],
      ['spill//x', 'spill/x'],
      ['a/../b', 'a/../b'],
      ['//net/share/', '//net/share'],
      ['///x//y', '/x/y'],
      ['/', '/'],
    ]
    for (const [directory, normalized] of cases) expect(normalizeSpillDirectory(directory)).toBe(normalized)
    const digest = sha16('c')
    expect(toSpillPath('.', 7, 'c')).toBe(`tool-result-000007-${digest}.txt`)
    expect(toSpillPath('/', 7, 'c')).toBe(`/tool-result-000007-${digest}.txt`)
    expect(toSpillPath('//', 7, 'c')).toBe(`//tool-result-000007-${digest}.txt`)
    expect(toSpillPath('spill/', 7, 'c')).toBe(`spill/tool-result-000007-${digest}.txt`)
  })
})

describe('spills through the reducer (B-SP-1..4)', () => {
  // SPEC 6.8 with a slightly higher target: the longer spill header still stops at level 2.
  const raw = {
    max_tokens: 3000,
    compaction_notice_enabled: false,
    compact_threshold: 0.5,
    target_usage: 0.62,
    truncate_chars: 50,
    protected_recent: 0.5,
    protected_tool_results: 4,
  }
  const digest = sha16('x'.repeat(800))
  const pathOf = (seq: number) => `/tmp/spill/tool-result-${String(seq).padStart(6, '0')}-${digest}.txt`

  it('B-SP-1: each truncation asks for one write of the original content and points at it', () => {
    const step = stepFor({ ...raw, tool_result_spill_dir: '/tmp/spill' })
    const next = step(withMessages(step, workedExampleTurns()), request())
    expect(next.state.compaction.stats).toMatchObject({ strategy_level: 2, messages_truncated: 4, messages_removed: 0 })
    expect(effectsOf(next.effects, 'write_spill')).toEqual([2, 5, 8, 11].map((seq) => ({ type: 'write_spill', directory: '/tmp/spill', path: pathOf(seq), content: 'x'.repeat(800) })))
    expect(next.view?.[2]).toEqual({
      role: 'tool',
      tool_call_id: 't0',
      content: `[truncated: ~200 tokens - read ${pathOf(2)} for the full result] ${'x'.repeat(50)}...`,
      metadata: { timestamp: NOW },
      _truncated: true,
      _original_tokens: 200,
    })
    expect(hookNames(next.effects)).toEqual(['context:token_meter', 'context:compaction'])
  })

  it('B-SP-2: once written, re-deriving the same truncation asks for no write and gives the same text', () => {
    const step = stepFor({ ...raw, tool_result_spill_dir: '/tmp/spill' })
    const first = step(withMessages(step, workedExampleTurns()), request())
    const written = fold(step, [2, 5, 8, 11].map((seq) => ({ type: 'spill_written' as const, path: pathOf(seq) })), first.state).state
    expect(written.toolResults.spillWritten).toEqual(new Set([2, 5, 8, 11].map(pathOf)))
    const second = step(written, request())
    const roomy = step(second.state, request({ tokenBudget: 1_000_000 }))
    expect(effectsOf(second.effects, 'write_spill')).toEqual([])
    expect(effectsOf(roomy.effects, 'write_spill')).toEqual([])
    expect(second.view).toEqual(first.view)
    expect(roomy.view).toEqual(first.view)
  })

  it('B-SP-2: different contents give different files', () => {
    const config = { ...DEFAULT_CONFIG, tool_result_spill_dir: '/tmp/spill' }
    const a = truncateToolResult(result('c1', 'a'.repeat(300), { metadata: { _seq: 1 } }), config, {})
    const b = truncateToolResult(result('c1', 'b'.repeat(300), { metadata: { _seq: 1 } }), config, {})
    expect(a.spill?.path).not.toBe(b.spill?.path)
  })

  it('B-SP-3 with SPEC 17.9: a failed write logs a warning, emits context:spill_failed, and no later view points at that path', () => {
    const step = stepFor({ ...raw, tool_result_spill_dir: '/tmp/spill' })
    const first = step(withMessages(step, workedExampleTurns()), request())
    const failed = step(first.state, { type: 'spill_failed', path: pathOf(2), error: 'EACCES' })
    expect(failed.view).toBeUndefined()
    expect(failed.effects).toEqual([
      { type: 'log', level: 'warning', message: expect.stringMatching(/could not spill.*stays whole.*tool_result_spill_dir/) },
      { type: 'emit_hook', name: 'context:spill_failed', data: { path: pathOf(2), error: 'EACCES' } },
    ])
    expect([...failed.state.toolResults.spillFailed]).toEqual([pathOf(2)])
    const written = fold(step, [5, 8, 11].map((seq) => ({ type: 'spill_written' as const, path: pathOf(seq) })), failed.state).state
    const second = step(written, request({ tokenBudget: 1_000_000 }))
    // Not retried, and the marker keeps the plain recovery text: the view the request that
    // spilled should have had once its write failed (withoutSpillPointers).
    expect(effectsOf(second.effects, 'write_spill')).toEqual([])
    expect(JSON.stringify(second.view)).not.toContain(pathOf(2))
    expect(second.view).toEqual(withoutSpillPointers(first.view ?? [], new Set([pathOf(2)])))
    expect(JSON.stringify(second.view)).toContain(pathOf(5))
  })

  it('SPEC 17.9: spills_answered folds the answers to a request\'s writes and gives its view back without the pointers that failed, and in the shape asked for', () => {
    const step = stepFor({ ...raw, tool_result_spill_dir: '/tmp/spill' })
    const first = step(withMessages(step, workedExampleTurns()), request({ shape: { format: 'openai-chat', repair: false } }))
    // A request that asks for writes leaves its output to the event that answers them.
    expect('output' in first).toBe(false)
    const answers = [{ type: 'spill_failed' as const, path: pathOf(2), error: 'EACCES' }, ...[5, 8, 11].map((seq) => ({ type: 'spill_written' as const, path: pathOf(seq) }))]
    const answered = step(first.state, { type: 'spills_answered', answers, view: first.view, shape: { format: 'openai-chat', repair: false } })
    const one = fold(step, answers, first.state).state
    expect(answered.state).toEqual(one)
    expect(answered.effects).toEqual([
      { type: 'log', level: 'warning', message: expect.stringContaining('could not spill') },
      { type: 'emit_hook', name: 'context:spill_failed', data: { path: pathOf(2), error: 'EACCES' } },
    ])
    expect(answered.view).toEqual(withoutSpillPointers(first.view ?? [], new Set([pathOf(2)])))
    expect(JSON.stringify(answered.output)).not.toContain(pathOf(2))
    expect(JSON.stringify(answered.output)).toContain(pathOf(5))
    // Without a failure the view comes back as it was.
    expect(step(first.state, { type: 'spills_answered', answers: answers.slice(1), view: first.view }).view).toBe(first.view)
  })

  it('withoutSpillPointers rewrites only truncated tool results pointing at the given paths', () => {
    const config = { ...DEFAULT_CONFIG, tool_result_spill_dir: '/tmp/spill' }
    const a = truncateToolResult(result('c1', 'a'.repeat(300), { metadata: { _seq: 1 } }), config, {}).message
    const b = truncateToolResult(result('c2', 'b'.repeat(300), { metadata: { _seq: 2 } }), config, {}).message
    const plain = truncateToolResult(result('c1', 'a'.repeat(300), { metadata: { _seq: 1 } }), DEFAULT_CONFIG, {}).message
    const user = { role: 'user', content: `[truncated: ~75 tokens - read ${pathOf(1)} for the full result] x` }
    const [a2, b2, user2] = withoutSpillPointers([a, b, user], new Set([toSpillPath('/tmp/spill', 1, 'a'.repeat(300))]))
    expect(a2.content).toBe(plain.content)
    expect(b2).toBe(b)
    expect(user2).toBe(user)
  })

  it('spill_written is idempotent', () => {
    const step = stepFor()
    const once = step(withMessages(step, []), { type: 'spill_written', path: '/p' })
    const twice = step(once.state, { type: 'spill_written', path: '/p' })
    expect(twice).toEqual({ state: once.state, view: undefined, effects: [] })
    expect(twice.state).toBe(once.state)
  })

  it('B-SP-4: without a spill dir nothing is written', () => {
    const step = stepFor(raw)
    const next = step(withMessages(step, workedExampleTurns()), request())
    expect(next.state.compaction.stats?.messages_truncated).toBe(4)
    expect(effectsOf(next.effects, 'write_spill')).toEqual([])
  })

  it('clear() forgets written paths, so the next truncation asks again', () => {
    const step = stepFor({ ...raw, tool_result_spill_dir: '/tmp/spill' })
    const first = step(withMessages(step, workedExampleTurns()), request())
    const written = fold(step, [2, 5, 8, 11].map((seq) => ({ type: 'spill_written' as const, path: pathOf(seq) })), first.state).state
    const cleared = step(written, { type: 'history_cleared' }).state
    const again = step(withMessages(step, workedExampleTurns(), cleared), request())
    expect(effectsOf(again.effects, 'write_spill').map((effect) => effect.path)).toEqual([2, 5, 8, 11].map(pathOf))
  })
})
