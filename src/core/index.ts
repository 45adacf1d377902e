/**
 * The pure core's public surface: state, events, effects, the reducer, replay, and the pure
 * building blocks (estimator, budget, meter, compaction, notice, predicates).
 */
export type { Message, MessageInput, Messages, MessageMetadata, JsonValue } from './messages/message.js'
export { DEFAULT_CONFIG, GUARD_DEFAULTS, isPerToolConfigActive } from './config.js'
export type { Config, ContextConfig, ConfigKey, TokenMeterMode, CompactionStrategy, ToolResultShape, NoticeRepeat, ReasoningContext, CompactionOrder, TokenEstimatorKind, UsageIntakeMode, TargetBasis, ToolResultTruncation, JsonWhitespace, JsonProjection, EagerUnit, ProjectedGroups, ProviderRulesMode, CompactionRefill, CompactionRefillHead } from './config.js'
export { presets, PRESET_NAMES, isPresetName } from './presets.js'
export type { PresetName } from './presets.js'
export { decodeConfig, toUnknownConfigKey } from './codecs.js'
export type { DecodedConfig, UnknownConfigKey } from './codecs.js'
export { decodeMessage, decodeMessages, decodeJsonValue, describeValue, toMemberPath, toProblemText, MAX_JSON_DEPTH } from './messages/json-value.js'
export type { JsonValueProblem, JsonValueProblemKind, JsonValueOptions } from './messages/json-value.js'
export { appendTo, isAppendable, toPlainArray } from './messages/appendable.js'
export { ConfigError, CompactionSkipLimitError, ContextLengthError, InvalidMessageError, InvalidRequestError, SnapshotError } from './errors.js'
export type { ContextLengthDetails } from './errors.js'
export type { Event, MessageAdded, MessagesReplaced, HistoryCleared, RequestReceived, UsageObserved, SummaryCallStarted, SummaryCompleted, SummaryFailed, SpillWritten, SpillFailed, SpillsAnswered, ProviderWindow, ViewShape } from './events.js'
export type { Effect, EmitHook, Log, WriteSpill, RequestSummary, CancelSummary, RaiseError } from './effects.js'
export { makeInitialState, hasStickyDecisions } from './state.js'
export type { State, StickyState, MeterState, SummaryState, PendingSummary, BudgetState, CompactionState, BreakerState, ToolResultsState } from './state.js'
export type { Step } from './step.js'
export type { CoreDeps } from './deps.js'
export type { TokenMeterStats, CompactionStats, CacheAggregates, CountKind } from './stats.js'
export { makeStep } from './reducer.js'
export { replayRecording, iterateReplay } from './replay/replay.js'
export type { ReplayOptions, ReplayResult, ReplaySummarizer, ReplayHandOver, ReplayUsage, ShapedView } from './replay/replay.js'
export type { ReplayPeer } from './replay/options.js'
export { DEFAULT_REPLAY_NOW } from './replay/recording.js'
export type { Recording, RecordingOp, RecordedUsage, RecordedProvider, ReplayEvent, ReplayOutputLine } from './replay/recording.js'
export { estimateOne, pyreprLength, makeCachedEstimator, estimateMessages } from './meter/estimate.js'
export type { TokenEstimator } from './meter/estimate.js'
export { computeBudget, computeEffectiveBudget, resolveBudget, toBudgetPayload, BUDGET_SAFETY_MARGIN } from './budget.js'
export type { BudgetSource, ResolvedBudget, BudgetPayload } from './budget.js'
export { measureFloor, toInfeasiblePayload } from './compaction/floor.js'
export type { FloorBreakdown, InfeasiblePayload } from './compaction/floor.js'
// what measureFloor and toInfeasiblePayload take: the pass context and its derivation memo
export { makePassContext, type PassContext } from './compaction/context.js'
export { makeDerivationMemo, type DerivationMemo } from './memo/derivation-memo.js'
export { isHumanPrompt } from './compaction/anchors.js'
export { STANDING_NOTICE_TEXT } from './compaction/notice.js'
export { estimateTyped, splitMedia, countMedia, isBase64Payload, toImageDimensions, toAnthropicImageTokens, toOpenAiImageTokens, MEDIA_TOKENS, toEncryptedReasoningTokens, REASONING_ENVELOPE_BYTES } from './meter/typed-estimate.js'
export type { MediaSplit } from './meter/typed-estimate.js'
export { isForegroundPayload } from './meter/foreground.js'
export { toIngressCut, utf8Length } from './tool-results/ingress-cap.js'
export { findPairingViolations, selectPairingProblems, type PairingProblem } from './formats/tool-pairing.js'
export { truncateToolResult, toSpillPath, toContentDigest, type Truncation } from './tool-results/tool-result-budget.js'
export { toNoticeText } from './compaction/notice.js'
export { toStub } from './compaction/stub.js'
export { isRealUserMessage } from './compaction/replay-last-user.js'
export { resolveClearAtLeast, resolveClearFloor, type ResolvedClearAtLeast } from './compaction/clear-at-least.js'
export { snapAbsorbBoundary, selectAbsorbSpan, toTranscript, toSummaryRequest, DEFAULT_SUMMARY_PROMPT } from './summary/summary.js'
export { SNAPSHOT_VERSION, toSnapshot, decodeSnapshot } from './snapshot/codec.js'
export type { Snapshot, SnapshotState, RestoredSnapshot } from './snapshot/codec.js'
export { findInconsistency } from './snapshot/consistency.js'
export type { Inconsistency } from './snapshot/consistency.js'
export { selectResumeEffects } from './snapshot/resume.js'
export { toExtractiveSummary } from './summary/extractive-summary.js'
export { decodeUsage, toRecordedUsage } from './meter/usage.js'
export type {
  ContractUsage,
  CacheCreation,
  AnthropicUsage,
  AnthropicIterationUsage,
  OpenAIChatUsage,
  OpenAIResponsesUsage,
  AiSdkUsage,
  LanguageModelV3UsageShape,
  AiSdkV5Usage,
  LangChainUsage,
  OpenAIAgentsUsage,
  ProviderUsage,
  UsageShape,
  DecodedUsage,
  LlmResponsePayload,
} from './meter/usage.js'
export { applyCacheRequest, breakpointTokens, sharedPrefixTokens, isPrefixBreak, EMPTY_CACHE, CACHE_LIFETIME_MS } from './economics/cache.js'
export type { CacheProvider, CacheItem, CacheRequest, CacheState, CacheLifetime, AnthropicCacheMode } from './economics/cache.js'
export { toCacheItems, toWireKey } from './economics/items.js'
export { applySimulatedRequest, toReading, EMPTY_SIMULATION } from './economics/simulation.js'
export { fitProviderModel, selectFitPairs, toBilledCount, NO_READINGS_FIT, type ProviderFit, type FitPair } from './economics/provider-model.js'
export type { UsageMode, Reading, SimulationState, RequestFacts, RequestEconomics, ComparedCacheMode } from './economics/simulation.js'
export { resolveModelName, toInputCostUsd } from './economics/prices.js'
export { toSessionMetrics, toRelativeCost, selectRepeatedRecordingCallIds, hasOwnPairingProblem, judgeOverBudget } from './economics/metrics.js'
export { toRecallFigures, toSalientTokens, isSalientToken, toValueStrings, toOriginalText, toViewMessageText, SALIENT_CANDIDATE, SALIENT_MAX_LENGTH, TOOL_RESULT_STUB } from './economics/recall.js'
export type { RecallFigures, RequestRecall } from './economics/recall.js'
export type { SessionMetrics, OverflowLimit, OverBudget } from './economics/metrics.js'
export type { ModelPrice, ModelWindow, ModelTable, InputSplit } from './economics/prices.js'
export * from './formats/index.js'
export type { HookEventMap, HookEventName, CompactionSkippedPayload, ViewInvalidPayload } from './hook-events.js'
