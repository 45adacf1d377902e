/**
 * What the framework drop-ins (LangChain middleware, Agents SDK filter) share: the manager they
 * drive (the `openai-chat` format, views asked for as contract pieces so that each piece keeps the
 * key of what it stands for), the check of its format, and the sync of its history with the
 * framework's list, which the framework resends whole before every model call.
 */
import type { LlmResponsePayload } from '../../core/meter/usage.js'
import type { Message, MessageInput } from '../../core/messages/message.js'
import { InvalidRequestError } from '../../core/errors.js'
import { isModifiedPiece } from '../../core/formats/assemble.js'

/**
 * What a framework drop-in needs of a manager: a `ContextManager` created with
 * `{ format: 'openai-chat' }` (any object with these methods works; another `format` is refused).
 *
 * @example
 * const context: ChatFrameworkContext = new ContextManager({ max_tokens: 200_000 }, { format: 'openai-chat' })
 */
export interface ChatFrameworkContext {
  readonly format?: string
  getMessages(): Promise<ReadonlyArray<unknown>>
  addMessage(message: MessageInput): Promise<void>
  setMessages(messages: ReadonlyArray<MessageInput>): Promise<void>
  getMessagesForRequest(options: { readonly tokenBudget?: number | null; readonly format: 'contract' }): Promise<ReadonlyArray<Message>>
  onLlmResponse(data: LlmResponsePayload): Promise<unknown>
}

/** Refuses a manager in another format than `openai-chat` (`InvalidRequestError`, field `format`), naming the fix. */
export const requireChatFormat = (context: { readonly format?: string }, who: string): void => {
  if (context.format !== undefined && context.format !== 'openai-chat') {
    throw new InvalidRequestError('format', `${who} needs a manager in the openai-chat format (new ContextManager(config, { format: 'openai-chat' })), got ${JSON.stringify(context.format)}`)
  }
}

/** One manager message built from the framework's list, and the fingerprint its place and content give it. */
export interface SyncEntry {
  readonly managed: Record<string, unknown>
  readonly fingerprint: string
}

/**
 * Keeps the manager's history equal to the framework's list: entries beyond the ones already
 * given are appended (`addMessage`); a list that does not continue the previous one replaces the
 * history (`setMessages`, SPEC 2.4, which resets the meter and compaction state). The first time,
 * an empty history counts as given; any other (a restored manager) is replaced.
 */
export const makeChatHistorySync = (context: ChatFrameworkContext) => {
  let given: Array<string> | null = null
  let first = true
  return async (entries: ReadonlyArray<SyncEntry>): Promise<void> => {
    if (first) {
      first = false
      given = (await context.getMessages()).length === 0 ? [] : null
    }
    const prints = entries.map((entry) => entry.fingerprint)
    const previous = given
    if (previous !== null && prints.length >= previous.length && previous.every((print, index) => prints[index] === print)) {
      for (const entry of entries.slice(previous.length)) await context.addMessage(entry.managed)
    } else {
      await context.setMessages(entries.map((entry) => entry.managed))
    }
    given = prints
  }
}

/** The view for the next request as contract pieces (each keeps the metadata key of what it stands for). */
export const requestPieces = (context: ChatFrameworkContext, tokenBudget: number | null | undefined): Promise<ReadonlyArray<Message>> =>
  context.getMessagesForRequest({ tokenBudget: tokenBudget ?? null, format: 'contract' })

/** The text a changed piece carries (a truncated result's marker and head, a stub). */
export const pieceText = (piece: Message): string => (typeof piece.content === 'string' ? piece.content : JSON.stringify(piece.content ?? ''))

/**
 * True when the piece's text is not the framework object's: the view changed it (truncated or
 * stubbed) or the history stores it changed (a tool result without JSON whitespace, or cut at
 * ingress: `isModifiedPiece`, src/core/formats/assemble.ts); the framework object is then rebuilt
 * with that text, so the framework sends what the meter counted.
 */
export const isChangedPiece = (piece: Message): boolean => isModifiedPiece(piece)
