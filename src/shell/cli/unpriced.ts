/**
 * The warning `compare` and `report` print for sessions whose model has no price, in one wording.
 */
import { closest, distance } from 'fastest-levenshtein'
import { countNoun } from '../count-noun.js'

/** ` (did you mean X?)` for a model name within 3 edits of a priced one, else ''. */
const suggestModel = (model: string, known: ReadonlyArray<string>): string => {
  if (known.length === 0 || model === '(none named)') return ''
  const near = closest(model, [...known])
  return distance(model, near) <= 3 ? ` (did you mean ${near}?)` : ` (priced models: ${[...known].sort().join(', ')})`
}

/**
 * One warning per model without a price among `sessions` (a session counts when its `price` is
 * null): the model (`(none named)` when neither the session nor `--model` names one), the input,
 * the number of sessions, what that means for this command (`consequence`) and the fix; with the
 * priced model names `known`, a named model within 3 edits of one gets `(did you mean X?)`, any
 * other the list of priced models. In the order the models first occur.
 *
 * @example
 * unpricedModelWarnings([{ model: 'm', price: null }, { model: 'm', price: null }, { model: null, price: null }, { model: 'gpt-4o', price: {} }], 'DIR', 'cost_usd is 0')
 * // => ['no price for model m in DIR (2 sessions): cost_usd is 0; give --model NAME or --prices FILE', 'no price for model (none named) in DIR (1 session): cost_usd is 0; give --model NAME or --prices FILE']
 * unpricedModelWarnings([{ model: 'gpt4o', price: null }], 'DIR', 'cost_usd is 0', ['gpt-4o', 'gpt-4.1'])
 * // => ['no price for model gpt4o (did you mean gpt-4o?) in DIR (1 session): cost_usd is 0; give --model NAME or --prices FILE']
 */
export const unpricedModelWarnings = (
  sessions: ReadonlyArray<{ readonly model: string | null | undefined; readonly price: unknown }>,
  input: string,
  consequence: string,
  known: ReadonlyArray<string> = [],
): string[] => {
  const unpriced = new Map<string, number>()
  for (const session of sessions) {
    if (session.price !== null) continue
    const model = session.model ?? '(none named)'
    unpriced.set(model, (unpriced.get(model) ?? 0) + 1)
  }
  return [...unpriced].map(([model, count]) => `no price for model ${model}${suggestModel(model, known)} in ${input} (${countNoun(count, 'session')}): ${consequence}; give --model NAME or --prices FILE`)
}
