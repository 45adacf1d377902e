/**
 * Where the shell writes log lines: the `Logger` shape, the console, silent and in-memory loggers,
 * and the text of a thrown value for a log line. Imported by the runner, the hook bus and the
 * summarizer alike, so it imports none of them.
 */

/**
 * Log levels the core uses (the `level` of a `log` effect).
 *
 * @example
 * const level: LogLevel = 'warning'
 */
export type LogLevel = 'debug' | 'info' | 'warning'

/**
 * Where the shell writes log lines. Wording is not part of the contract, except for the
 * substrings SPEC 3 requires in warnings (e.g. `unknown token_meter`).
 *
 * @example
 * const logger: Logger = { debug: () => {}, info: console.info, warning: console.warn }
 */
export interface Logger {
  readonly debug: (message: string) => void
  readonly info: (message: string) => void
  readonly warning: (message: string) => void
}

/**
 * Logs to the console: `debug` → `console.debug`, `info` → `console.info`, `warning` →
 * `console.warn`.
 *
 * @example
 * consoleLogger.warning('context-simple: unknown token_meter "x"')
 */
export const consoleLogger: Logger = {
  debug: (message) => console.debug(message),
  info: (message) => console.info(message),
  warning: (message) => console.warn(message),
}

/**
 * Discards every line.
 *
 * @example
 * silentLogger.warning('ignored')
 */
export const silentLogger: Logger = { debug: () => undefined, info: () => undefined, warning: () => undefined }

/**
 * One line captured by `memoryLogger`.
 *
 * @example
 * const entry: LogEntry = { level: 'info', message: 'hello' }
 */
export interface LogEntry {
  readonly level: LogLevel
  readonly message: string
}

/**
 * A logger that keeps its lines in `entries` (in order) for tests.
 *
 * @example
 * const logger: MemoryLogger = memoryLogger()
 * logger.messages('warning') // => []
 */
export interface MemoryLogger extends Logger {
  readonly entries: ReadonlyArray<LogEntry>
  /** The messages logged at `level`, in order. */
  readonly messages: (level: LogLevel) => ReadonlyArray<string>
}

/**
 * Makes a logger that records every line in memory.
 *
 * @example
 * const logger = memoryLogger()
 * logger.warning('careful')
 * logger.entries // => [{ level: 'warning', message: 'careful' }]
 */
export const memoryLogger = (): MemoryLogger => {
  const entries: Array<LogEntry> = []
  const add = (level: LogLevel) => (message: string) => {
    entries.push({ level, message })
  }
  return {
    entries,
    debug: add('debug'),
    info: add('info'),
    warning: add('warning'),
    messages: (level) => entries.filter((entry) => entry.level === level).map((entry) => entry.message),
  }
}

/**
 * The text of an unknown thrown value.
 *
 * @example
 * describeError(new Error('disk full')) // => 'disk full'
 */
export const describeError = (error: unknown): string => (error instanceof Error ? error.message || error.name : String(error))
