/**
 * The imperative shell's public surface: the context manager, `mount`, and the pieces an embedder
 * may replace (clock, hook bus, effect runner, logger, spill writer, summarizer, recorder).
 */
export { systemClock, fixedClock, formatTimestamp } from './clock.js'
export type { Clock } from './clock.js'
export { makeMittHooks } from './hooks.js'
export type { HookBus, TypedHookBus, HookHandler, HookRegisterOptions, HookRegistration, MittHookBus, MittHooksOptions } from './hooks.js'
export { consoleLogger, silentLogger, memoryLogger, makeDefaultRunner, describeError } from './runner.js'
export type { Logger, LogLevel, LogEntry, MemoryLogger, Dispatch, EffectRunner, DefaultRunner, DefaultRunnerOptions } from './runner.js'
export { SpillRefusedError, makeFileSpillWriter, makeMemorySpillWriter, resolveSpillTarget, encodeSpillContent } from './spill-fs.js'
export type { SpillWriter, SpillRefusal, MemorySpillWriter } from './spill-fs.js'
export { TimeoutError, EmptySummaryError, makeProviderSummarizer, systemTimer, responseText } from './summarizer.js'
export type { Summarizer, SummaryRequest, Timer, ProviderSummarizerOptions } from './summarizer.js'
export { readProviderWindow } from './provider.js'
export type { Provider, ModelInfo, ProviderInfo, CompletionMessage, CompletionRequest, CompletionResponse } from './provider.js'
export { makeRecorder } from './recorder.js'
export type { Recorder, SessionRecorder, RecorderOptions } from './recorder.js'
export { ContextManager, CompactionSkipLimitError, ContextLengthError } from './context-manager.js'
export type { ContextManagerOptions, RequestOptions, HookResult, StepFunction, SystemPromptFactory } from './context-manager.js'
export { mount, validateMountConfig, METER_LISTENER } from './mount.js'
export type { Coordinator, Cleanup, MountOptions } from './mount.js'
export { makeContextPrepareStep, makeContextMiddleware } from './integrations/ai-sdk.js'
export type { AiSdkContext, AiSdkContextOptions, PrepareStepOptions, PromptMessage, ContextMiddleware } from './integrations/ai-sdk.js'
