// Type test (checked by `npm run typecheck`, not run): the block and part type lists of
// src/core/formats/input-rules.ts are exactly the pinned SDKs' (@anthropic-ai/sdk ContentBlockParam,
// ai@6 UserModelMessage / AssistantModelMessage / ToolModelMessage content parts).
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages'
import type { AssistantModelMessage, ToolModelMessage, UserModelMessage } from 'ai'
import type { AI_SDK_PART_TYPES, ANTHROPIC_BLOCK_TYPES } from '../../src/core/formats/input-rules.js'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
type TypeOf<U> = U extends { type: infer K } ? K : never
type PartTypes<M extends { content: unknown }> = Exclude<M['content'], string> extends Array<infer E> ? TypeOf<E> : never

export const anthropicBlocks: Equal<TypeOf<ContentBlockParam>, (typeof ANTHROPIC_BLOCK_TYPES)[number]> = true
export const userParts: Equal<PartTypes<UserModelMessage>, (typeof AI_SDK_PART_TYPES)['user'][number]> = true
export const assistantParts: Equal<PartTypes<AssistantModelMessage>, (typeof AI_SDK_PART_TYPES)['assistant'][number]> = true
export const toolParts: Equal<PartTypes<ToolModelMessage>, (typeof AI_SDK_PART_TYPES)['tool'][number]> = true
