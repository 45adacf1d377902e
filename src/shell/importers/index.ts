/**
 * Recorded-session importers: other agents' session formats turned into recordings. Re-exports only.
 */
export { importClaudeCodeSession, importClaudeCodeSessions, isClearCommand, toContractUsage, toModuleTimestamp, NO_RESULT_RECORDED } from './claude-code.js'
export {
  importOpenAiChatTrajectories,
  toTrajectoryRecording,
  toSessionName,
  OpenAiChatTrajectoryCodec,
} from './openai-chat.js'
export type { OpenAiChatTrajectory } from './openai-chat.js'
export { importCodexRollout, toCodexContractUsage, CODEX_LINE_TYPES } from './codex.js'
export type { CodexImportOptions } from './codex.js'
export { detectFormat, loadRecordings, INPUT_FORMAT_CHOICES } from './detect.js'
export type { InputFormat, InputFormatChoice, LoadedRecordings } from './detect.js'
