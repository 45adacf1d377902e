// Responses items keep every key the API accepts on their type (RESPONSES_ITEM_KEYS_BY_TYPE, checked
// against the pinned SDK by test/types/responses-item-keys.ts) and lose the bookkeeping ones.
import { describe, expect, it } from 'vitest'
import { toRequestView } from '../../../src/core/formats/dispatch.js'
import { RESPONSES_ITEM_KEYS_BY_TYPE, findResponsesViolations, toResponsesView } from '../../../src/core/formats/openai-responses.js'
import { toProviderPieces } from '../../../src/core/history.js'

/** One item of `type` with a value on every key the table lists for it. */
const fullItem = (type: string, keys: ReadonlyArray<string>): Record<string, unknown> => {
  const item: Record<string, unknown> = {}
  for (const key of keys) item[key] = key === 'type' ? type : key === 'role' ? 'assistant' : `${type}.${key}`
  return item
}

describe('Responses item keys', () => {
  const items = Object.entries(RESPONSES_ITEM_KEYS_BY_TYPE).map(([type, keys]) => fullItem(type, keys))

  it('every item type keeps every key its SDK type has, in the view', () => {
    const stored = toProviderPieces('openai-responses', [{ role: 'user', content: 'q' }, ...items])
    const view = toResponsesView(stored)
    for (const item of items) expect(view).toContainEqual(item)
    expect(findResponsesViolations(view).filter((problem) => problem.startsWith('O4'))).toEqual([])
  })

  it('the keys the issue names survive conversion', () => {
    const named: Record<string, Record<string, unknown>> = {
      computer_call: { type: 'computer_call', id: 'cu_1', call_id: 'cc_1', action: { type: 'click', button: 'left', x: 1, y: 2 }, pending_safety_checks: [{ id: 's1', code: 'malicious', message: 'check' }], status: 'completed' },
      computer_call_output: { type: 'computer_call_output', call_id: 'cc_1', output: { type: 'computer_screenshot', image_url: 'data:image/png;base64,AA' }, acknowledged_safety_checks: [{ id: 's1' }] },
      image_generation_call: { type: 'image_generation_call', id: 'ig_1', result: 'AAAA', status: 'completed' },
      code_interpreter_call: { type: 'code_interpreter_call', id: 'ci_1', code: 'print(1)', container_id: 'cntr_1', outputs: [{ type: 'logs', logs: '1' }], status: 'completed' },
      apply_patch_call: { type: 'apply_patch_call', call_id: 'ap_1', operation: { type: 'delete_file', path: 'a.txt' }, status: 'completed' },
      function_call: { type: 'function_call', call_id: 'fc_1', name: 'f', namespace: 'tools', arguments: '{}' },
    }
    const list = [{ role: 'user', content: 'q' }, ...Object.values(named), { type: 'function_call_output', call_id: 'fc_1', output: 'ok' }]
    const { view } = toRequestView('openai-responses', toProviderPieces('openai-responses', list))
    for (const item of Object.values(named)) expect(view).toContainEqual(item)
  })

  it('bookkeeping keys and keys of other item types stay out', () => {
    const list = [
      { role: 'user', content: 'q', metadata: { source: 'rollout' } },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}', _seq: 3, timestamp: 'x', pending_safety_checks: [] },
      { type: 'function_call_output', call_id: 'c', output: 'ok', _truncated: true, namespace: 'n' },
    ]
    const view = toResponsesView(toProviderPieces('openai-responses', list))
    expect(view).toEqual([{ role: 'user', content: 'q' }, { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: 'c', output: 'ok' }])
    expect(findResponsesViolations([{ type: 'function_call_output', call_id: 'c', output: 'ok', namespace: 'n' }])).toEqual([
      'O4 item 0 extra keys namespace',
      'O2 output c at 0 has no call before it',
    ])
  })
})
