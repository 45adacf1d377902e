// Unit tests for src/core/tool-results/ingress-cap.ts (docs/configuration.md, tool_result_ingress_cap_bytes): a
// tool result over the cap is cut with a visible marker when added; with a spill directory the
// whole original is spilled first and the marker names the file; a failed spill keeps it whole
// and emits context:spill_failed; one context:tool_result_ingress_truncated per cut; off by default.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isAppendable } from '../../../src/core/messages/appendable.js'
import { toIngressCut, utf8Length } from '../../../src/core/tool-results/ingress-cap.js'
import { added, calls, effectsOf, fold, request, result, stepFor, user } from '../../support/core.js'

const big = 'é'.repeat(3000) // 6,000 bytes
const events = [added(user('read it')), added(calls(['a'])), added(result('a', big))]

describe('tool_result_ingress_cap_bytes', () => {
  it('off (the contract): the result is stored whole', () => {
    const { state } = fold(stepFor(), events)
    expect(state.history[2].content).toBe(big)
  })

  it('without a spill directory: cut at once on a character boundary, with a marker and one event', () => {
    const { state, steps } = fold(stepFor({ tool_result_ingress_cap_bytes: 1001 }), events)
    const content = state.history[2].content as string
    expect(content.startsWith('é'.repeat(500) + '\n[tool result cut at ingress: 1000 of 6000 bytes kept')).toBe(true)
    expect(content).toContain('call the tool again')
    expect(effectsOf(steps[2].effects, 'emit_hook')).toEqual([
      { type: 'emit_hook', name: 'context:tool_result_ingress_truncated', data: { original_bytes: 6000, kept_bytes: 1000, cap_bytes: 1001, spilled: false } },
    ])
    expect(state.history[2].metadata).toMatchObject({ _seq: 2 })
  })

  it('a cut result replaces the history\'s last item: the history stays an appendable list and the request after it extends the previous one', () => {
    const raw = { tool_result_ingress_cap_bytes: 1001 }
    const step = stepFor(raw)
    const { state: before } = fold(step, [...events.slice(0, 2), request()])
    const cut = step(before, events[2]).state
    expect(isAppendable(cut.history)).toBe(true)
    expect((cut.history[2].content as string).startsWith('é'.repeat(500))).toBe(true)
    // The memo extends the previous request's derivations: the same view as a fresh reducer.
    expect(step(cut, request()).view).toEqual(stepFor(raw)(cut, request()).view)
  })

  it('with a spill directory: the original is spilled first, then the result is cut and names the file', () => {
    const step = stepFor({ tool_result_ingress_cap_bytes: 1000, tool_result_spill_dir: '/tmp/spill' })
    const { state, steps } = fold(step, events)
    const [write] = effectsOf(steps[2].effects, 'write_spill')
    expect(write).toMatchObject({ directory: '/tmp/spill', content: big })
    expect(state.history[2].content).toBe(big) // not cut until the write is confirmed
    const written = fold(step, [{ type: 'spill_written', path: write.path }], state)
    expect(written.state.history[2].content).toContain(`the full output is in ${write.path}`)
    expect(effectsOf(written.steps[0].effects, 'emit_hook')[0].data).toEqual({ original_bytes: 6000, kept_bytes: 1000, cap_bytes: 1000, spilled: true })
    expect(written.state.toolResults.ingressPending).toEqual({})
  })

  it('a failed spill keeps the result whole and emits context:spill_failed', () => {
    const step = stepFor({ tool_result_ingress_cap_bytes: 1000, tool_result_spill_dir: '/tmp/spill' })
    const { state, steps } = fold(step, events)
    const [write] = effectsOf(steps[2].effects, 'write_spill')
    const failed = fold(step, [{ type: 'spill_failed', path: write.path, error: 'disk full' }], state)
    expect(failed.state.history[2].content).toBe(big)
    expect(effectsOf(failed.steps[0].effects, 'emit_hook')).toEqual([{ type: 'emit_hook', name: 'context:spill_failed', data: { path: write.path, error: 'disk full' } }])
  })

  it('property: the kept text is a prefix of whole code points within the cap', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: 1, max: 400 }), (text, cap) => {
        const cut = toIngressCut(text, cap, null)
        const kept = cut.content.slice(0, cut.content.lastIndexOf('\n[tool result cut at ingress'))
        expect(text.startsWith(kept)).toBe(true)
        expect(utf8Length(kept)).toBe(cut.keptBytes)
        expect(cut.keptBytes).toBeLessThanOrEqual(cap)
        expect(cut.originalBytes).toBe(Buffer.byteLength(text, 'utf8'))
      }),
    )
  })
})
