// Type test (checked by `npm run typecheck`, not run): the value types of the configuration keys and
// of the options a user writes (replay peers, request shapes, provider reads, input formats,
// Anthropic blocks) can be imported from the package entry, and are the types the keys use.
import type {
  AnthropicBlock,
  AnthropicCacheControl,
  AnthropicImageBlock,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
  Config,
  ContractUsage,
  CacheCreation,
  CompactionRefill,
  CompactionRefillHead,
  InputFormat,
  InputFormatChoice,
  LoadedRecordings,
  OverBudget,
  ProviderReadOptions,
  ProviderRulesMode,
  ReplayOptions,
  ReplayPeer,
  RequestReceived,
  SpillsAnswered,
  Event,
  TargetBasis,
  ToolResultTruncation,
  ViewShape,
} from '../../src/index.js'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

export const targetBasis: Equal<Config['target_basis'], TargetBasis> = true
export const toolResultTruncation: Equal<Config['tool_result_truncation'], ToolResultTruncation> = true
export const compactionRefill: Equal<Config['compaction_refill'], CompactionRefill> = true
export const compactionRefillHead: Equal<Config['compaction_refill_head'], CompactionRefillHead> = true
export const providerRules: Equal<Config['provider_rules'], ProviderRulesMode | null> = true
export const replayPeer: Equal<NonNullable<ReplayOptions['peer']>, ReplayPeer> = true
export const viewShape: Equal<NonNullable<RequestReceived['shape']>, ViewShape> = true
export const cacheCreation: Equal<NonNullable<ContractUsage['cache_creation']>, CacheCreation> = true
export const spillsAnswered: Equal<Extract<Event, { type: 'spills_answered' }>, SpillsAnswered> = true
export const anthropicBlocks: Equal<AnthropicBlock, AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock | AnthropicThinkingBlock> = true
export const cacheControl: AnthropicCacheControl = { type: 'ephemeral' }
export const formats: ReadonlyArray<InputFormat | InputFormatChoice> = ['auto', 'recording']
export const loaded = (value: LoadedRecordings): number => value.recordings.length
export const providerRead = (options: ProviderReadOptions): ProviderReadOptions => options
export const judged: ReadonlyArray<OverBudget> = [true, false, 'unknown']
