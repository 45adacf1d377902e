/**
 * Provider formats: re-exports only (see docs/formats.md).
 */
export { PROVIDER_FORMATS, isProviderFormat, carrierOf } from './carrier.js'
export type { MessageFormat, ProviderFormat, NativeCarrier, Piece } from './carrier.js'
export { validateFormatMessage, expandMessage, toFormatView, toNativeHistory, findFormatViolations, makeFormatEstimator, repairToolPairing, REPAIR_NO_RESULT, toRequestView, selectRepeatedHistoryCallIds, isRepeatedIdProblem } from './dispatch.js'
export type { FormatViews, FormatView, FormatCheckOptions } from './dispatch.js'
export { toAnthropicView, findAnthropicViolations, canonicalJson, expandAnthropicMessage } from './anthropic.js'
export type { AnthropicView, AnthropicMessage, AnthropicBlock, AnthropicCheckOptions } from './anthropic.js'
export { toAiSdkView, findAiSdkViolations, expandAiSdkMessage, toOutputText, toAiSdkPrompt, endsAwaitingApproval, isApprovalResponsePiece } from './ai-sdk.js'
export type { AiSdkMessage, AiSdkPrompt } from './ai-sdk.js'
export { toChatView, findChatViolations, findChatPairingViolations, expandChatMessage, CHAT_MESSAGE_KEYS } from './openai-chat.js'
export type { OpenAiChatMessage, OpenAiChatTextPart, OpenAiChatContentPart, OpenAiChatToolCall } from './openai-chat.js'
export { toResponsesView, findResponsesViolations, expandResponsesItem, mergeResponsesPieces, RESPONSES_ITEM_KEYS, RESPONSES_ITEM_KEYS_BY_TYPE, responsesKeysOf, type ResponsesItemType } from './openai-responses.js'
export type { ResponsesItem } from './openai-responses.js'
export type { AiSdkModelMessage, AiSdkToolResultPart, AiSdkToolResultOutput, AiSdkJsonValue, AiSdkProviderOptions, AiSdkDataContent } from './ai-sdk-model-message.js'
export type { ResponsesInputItem, ResponsesInputText, ResponsesAnnotation } from './openai-responses-input.js'
