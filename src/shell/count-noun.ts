/**
 * Counts in the text the CLI prints (`replay`, `compare`, `report`, `demo`) and the report page.
 */

/**
 * `count` and `noun`, the noun in the singular for a count of 1 and in the plural otherwise
 * (`plural`, by default `noun` with an `s`: 0 and 2 readings, 1 reading). The count is printed as
 * given (`String(count)`, no grouping). `noun` may hold adjectives before it (`'recorded reading'`).
 *
 * @example
 * countNoun(1, 'recorded reading') // => '1 recorded reading'
 * countNoun(169, 'recorded reading') // => '169 recorded readings'
 * countNoun(0, 'session') // => '0 sessions'
 * countNoun(1, 'child', 'children') // => '1 child'
 */
export const countNoun = (count: number, noun: string, plural = `${noun}s`): string => `${count} ${count === 1 ? noun : plural}`
