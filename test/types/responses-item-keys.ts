// Type test (checked by `npm run typecheck`, not run): the Responses item key table is exactly the
// pinned SDK's `ResponseInputItem` (openai@6). It fails to compile when the SDK gains an item type
// or a key the table lacks, or when the table names a type or key the SDK does not.
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import type { RESPONSES_ITEM_KEYS_BY_TYPE } from '../../src/core/formats/openai-responses.js'

type Table = typeof RESPONSES_ITEM_KEYS_BY_TYPE
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
/** Every `type` the SDK's input items carry (`message` for the messages whose type is optional). */
type SdkItemType = ResponseInputItem extends infer U ? (U extends { type?: infer K } ? (K extends string ? K : never) : never) : never
/** Every key of the SDK's items of one type (the union over the members of that type). */
type SdkKeys<T extends string> = Extract<ResponseInputItem, { type?: T | null }> extends infer V ? (V extends unknown ? keyof V : never) : never

/** True per SDK item type when the table lists exactly its keys; the name of a failing type shows in the error. */
type Agreement = { [T in SdkItemType]: T extends keyof Table ? Equal<SdkKeys<T>, Table[T][number]> : 'missing from RESPONSES_ITEM_KEYS_BY_TYPE' }

export const everyTypeAgrees: { [T in SdkItemType]: true } = null as unknown as Agreement
export const noExtraType: Equal<keyof Table, SdkItemType> = true
