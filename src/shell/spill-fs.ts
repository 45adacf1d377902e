/**
 * Spill writers (SPEC 11.5): put the full original of a truncated tool result in a file inside the
 * spill directory, atomically and idempotently, refusing path traversal and symlinks.
 *
 * Runtime-neutral (docs/runtimes.md): the file writer's logic is written over a small file-system
 * interface. `makeFileSpillWriter` in `context-simple/node` (src/shell/node/spill-file.ts) gives it
 * Node's `fs`; the manager's default writer (`makeRuntimeSpillWriter`) looks the runtime's file
 * system up on its first write, so it writes files on Node, Deno and Bun and, in a browser or an
 * edge worker, answers each write with a failure (the result then stays whole, SPEC 17.9).
 */
import { loadNodeBuiltin, nodeBuiltin } from './runtime.js'

/**
 * Writes one spill file. `directory` is the configured spill directory, `path` the file to write
 * (the core's pointer path, directly inside `directory`), `content` the full original text
 * (written as UTF-8). Resolves to `'written'` when it wrote the file and `'exists'` when the file
 * already held exactly this content. Rejects on any failure (the runner reports `spill_failed`).
 *
 * @example
 * const writer: SpillWriter = makeMemorySpillWriter()
 * await writer.write('/tmp/spill', '/tmp/spill/a.txt', 'full text') // => 'written'
 */
export interface SpillWriter {
  readonly write: (directory: string, path: string, content: string) => Promise<'written' | 'exists'>
}

/**
 * Why a spill was refused: the path escapes the directory, or a symlink is in the way.
 *
 * @example
 * const reason: SpillRefusal = 'outside_directory'
 */
export type SpillRefusal = 'outside_directory' | 'directory_is_symlink' | 'target_is_symlink' | 'directory_not_a_directory' | 'pointer_unresolvable'

/**
 * Thrown (as a rejection) when a spill is refused for safety: `reason` says why, `path` is the
 * requested file. Nothing is written when it is thrown.
 *
 * @example
 * await makeMemorySpillWriter().write('/tmp/s', '/tmp/s/../x.txt', 'x').catch((e) => e instanceof SpillRefusedError) // => true
 */
export class SpillRefusedError extends Error {
  override readonly name = 'SpillRefusedError'
  readonly path: string
  readonly reason: SpillRefusal
  constructor(message: string, path: string, reason: SpillRefusal) {
    super(message)
    this.path = path
    this.reason = reason
  }
}

/** Lone UTF-16 surrogates, which UTF-8 cannot encode; written as `?` (as the spill digest does). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * The UTF-8 bytes written for `content`: lone surrogates become `?`, matching SPEC 11.5's digest.
 *
 * @example
 * encodeSpillContent('é').length // => 2
 */
export const encodeSpillContent = (content: string): Uint8Array => UTF8.encode(content.replace(LONE_SURROGATE, '?'))

const UTF8 = new TextEncoder()

/** The path operations the spill writers use: Node's `node:path` where the runtime has it. */
export interface PathOps {
  readonly resolve: (...paths: string[]) => string
  readonly dirname: (path: string) => string
  readonly basename: (path: string) => string
}

/**
 * POSIX path operations for runtimes without `node:path` (browsers, edge workers): a relative
 * path is resolved against the working directory when the runtime has one, else against `/`.
 */
export const POSIX_PATHS: PathOps = {
  resolve: (...paths) => {
    let joined = ''
    for (let index = paths.length - 1; index >= 0 && !joined.startsWith('/'); index -= 1) {
      if (paths[index] !== '') joined = joined === '' ? paths[index] : `${paths[index]}/${joined}`
    }
    if (!joined.startsWith('/')) {
      const cwd = (globalThis as { readonly process?: { readonly cwd?: () => string } }).process?.cwd?.() ?? '/'
      joined = `${cwd}/${joined}`
    }
    const parts: string[] = []
    for (const part of joined.split('/')) {
      if (part === '' || part === '.') continue
      if (part === '..') parts.pop()
      else parts.push(part)
    }
    return `/${parts.join('/')}`
  },
  dirname: (path) => {
    // the last slash before the last name, trailing slashes ignored (as path.posix.dirname)
    let end = -1
    let inName = false
    for (let index = path.length - 1; index >= 1; index -= 1) {
      if (path[index] !== '/') inName = true
      else if (inName) {
        end = index
        break
      }
    }
    if (end === -1) return path.startsWith('/') ? '/' : '.'
    return path.startsWith('/') && end === 1 ? '//' : path.slice(0, end)
  },
  basename: (path) => path.replace(/\/+$/, '').split('/').at(-1) ?? '',
}

/** `node:path` when the runtime has it (so Windows paths behave as before), else POSIX. */
const runtimePaths = (): PathOps => nodeBuiltin<PathOps>('node:path') ?? POSIX_PATHS

/**
 * Resolves `directory` and `path` (relative ones against the working directory) and checks that the
 * file lies directly inside the directory. Returns both absolute paths; throws `SpillRefusedError`
 * (`outside_directory`) otherwise, e.g. for `dir/../x.txt`, `dir/sub/x.txt` or `dir` itself.
 *
 * @example
 * resolveSpillTarget('/tmp/s', '/tmp/s/./a.txt') // => { directory: '/tmp/s', target: '/tmp/s/a.txt' }
 */
export const resolveSpillTarget = (directory: string, path: string): { readonly directory: string; readonly target: string } =>
  resolveTargetWith(runtimePaths(), directory, path)

const resolveTargetWith = (paths: PathOps, directory: string, path: string): { readonly directory: string; readonly target: string } => {
  const { resolve, dirname, basename } = paths
  const resolvedDirectory = resolve(directory)
  const target = resolve(path)
  const name = basename(target)
  if (dirname(target) !== resolvedDirectory || name === '' || name === '.' || name === '..') {
    throw new SpillRefusedError(
      `spill path ${JSON.stringify(path)} is not directly inside ${JSON.stringify(directory)}`,
      path,
      'outside_directory',
    )
  }
  return { directory: resolvedDirectory, target }
}

/** What `lstat` answers that the file writer reads. */
interface FileFacts {
  readonly size: number
  readonly isFile: () => boolean
  readonly isDirectory: () => boolean
  readonly isSymbolicLink: () => boolean
}

/**
 * The file-system calls the file writer makes: the subset of Node's `fs/promises` it uses (Deno
 * and Bun provide the same module), and the runtime's path operations.
 */
export interface SpillFiles {
  readonly lstat: (path: string) => Promise<FileFacts>
  readonly mkdir: (path: string, options: { readonly recursive: true }) => Promise<unknown>
  readonly readFile: (path: string) => Promise<Uint8Array>
  readonly realpath: (path: string) => Promise<string>
  readonly rename: (from: string, to: string) => Promise<void>
  readonly unlink: (path: string) => Promise<void>
  readonly writeFile: (path: string, data: Uint8Array, options: { readonly flag: 'wx' }) => Promise<void>
  readonly paths: PathOps
}

const sameBytes = (left: Uint8Array, right: Uint8Array): boolean => {
  if (left.length !== right.length) return false
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false
  return true
}

/** 12 random hexadecimal digits (Web Crypto), for a temporary file's name. */
const randomHex = (): string => Array.from(crypto.getRandomValues(new Uint8Array(6)), (byte) => byte.toString(16).padStart(2, '0')).join('')

/**
 * The file-system spill writer over `files` (see `makeFileSpillWriter` in src/shell/node/spill-file.ts
 * for the steps). Internal: `context-simple/node` gives it Node's `fs`, `makeRuntimeSpillWriter`
 * the runtime's.
 */
export const makeFileSpillWriterOver = (files: SpillFiles): SpillWriter => {
  /** `lstat` that resolves to null when nothing exists at `path`. */
  const lstatOrNull = async (path: string): Promise<FileFacts | null> => {
    try {
      return await files.lstat(path)
    } catch (error) {
      if ((error as { readonly code?: unknown }).code === 'ENOENT') return null
      throw error
    }
  }
  /** Refuses when `path`, resolved by the operating system, is not the file at `target`. */
  const requireResolvablePointer = async (path: string, target: string): Promise<void> => {
    const [viaPointer, written] = await Promise.all([files.realpath(path).catch(() => null), files.realpath(target).catch(() => null)])
    if (viaPointer === null || viaPointer !== written) {
      throw new SpillRefusedError(`spill path ${JSON.stringify(path)} does not lead to the file written (${JSON.stringify(target)})`, path, 'pointer_unresolvable')
    }
  }
  return {
    write: async (directory, path, content) => {
      const resolved = resolveTargetWith(files.paths, directory, path)
      const directoryStat = await lstatOrNull(resolved.directory)
      if (directoryStat === null) {
        await files.mkdir(resolved.directory, { recursive: true })
        const created = await files.lstat(resolved.directory)
        if (created.isSymbolicLink()) {
          throw new SpillRefusedError(`spill directory ${JSON.stringify(directory)} is a symlink`, path, 'directory_is_symlink')
        }
      } else if (directoryStat.isSymbolicLink()) {
        throw new SpillRefusedError(`spill directory ${JSON.stringify(directory)} is a symlink`, path, 'directory_is_symlink')
      } else if (!directoryStat.isDirectory()) {
        throw new SpillRefusedError(`spill directory ${JSON.stringify(directory)} is not a directory`, path, 'directory_not_a_directory')
      }
      const bytes = encodeSpillContent(content)
      const targetStat = await lstatOrNull(resolved.target)
      if (targetStat !== null) {
        if (targetStat.isSymbolicLink()) {
          throw new SpillRefusedError(`spill target ${JSON.stringify(path)} is a symlink`, path, 'target_is_symlink')
        }
        if (targetStat.isFile() && targetStat.size === bytes.length && sameBytes(bytes, await files.readFile(resolved.target))) {
          await requireResolvablePointer(path, resolved.target)
          return 'exists'
        }
      }
      const temporary = files.paths.resolve(resolved.directory, `.${files.paths.basename(resolved.target)}.${randomHex()}.tmp`)
      try {
        await files.writeFile(temporary, bytes, { flag: 'wx' })
        await files.rename(temporary, resolved.target)
      } catch (error) {
        await files.unlink(temporary).catch(() => undefined)
        throw error
      }
      await requireResolvablePointer(path, resolved.target)
      return 'written'
    },
  }
}

/**
 * The spill writer a manager uses when given none: the file writer (`makeFileSpillWriter` of
 * `context-simple/node`: atomic, idempotent, no traversal, no symlinks) over the runtime's own
 * file system, looked up on the first write (Node, Deno, Bun). In a runtime without one (a
 * browser, an edge worker) every write rejects with an `Error` saying so, and the manager keeps
 * that result whole (`spill_failed`, SPEC 17.9); pass `makeMemorySpillWriter()` or your own
 * `SpillWriter` there instead.
 *
 * @example
 * import { mkdtempSync } from 'node:fs'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 * const directory = mkdtempSync(join(tmpdir(), 'spill-'))
 * const writer: SpillWriter = makeRuntimeSpillWriter()
 * await writer.write(directory, join(directory, 'a.txt'), 'full text') // => 'written'
 */
export const makeRuntimeSpillWriter = (): SpillWriter => {
  let writer: Promise<SpillWriter | null> | null = null
  const find = async (): Promise<SpillWriter | null> => {
    const [fs, paths] = await Promise.all([loadNodeBuiltin<Omit<SpillFiles, 'paths'>>('node:fs/promises'), loadNodeBuiltin<PathOps>('node:path')])
    return fs === null || paths === null ? null : makeFileSpillWriterOver({ ...pickFiles(fs), paths })
  }
  return {
    write: async (directory, path, content) => {
      writer ??= find()
      const found = await writer
      if (found === null) {
        throw new Error('this runtime has no file system to spill to: pass options.spillWriter (makeMemorySpillWriter() or your own SpillWriter) to the manager')
      }
      return found.write(directory, path, content)
    },
  }
}

/** The calls of `SpillFiles` taken from a `fs/promises` module. */
const pickFiles = (fs: Omit<SpillFiles, 'paths'>): Omit<SpillFiles, 'paths'> => ({
  lstat: fs.lstat,
  mkdir: fs.mkdir,
  readFile: fs.readFile,
  realpath: fs.realpath,
  rename: fs.rename,
  unlink: fs.unlink,
  writeFile: fs.writeFile,
})

/**
 * An in-memory spill writer for tests and embedders: `files` maps each resolved absolute path to
 * its content. Applies the same traversal check as the file writer (`SpillRefusedError`); an
 * identical rewrite resolves `'exists'`.
 *
 * @example
 * const writer: MemorySpillWriter = makeMemorySpillWriter()
 * writer.files.size // => 0
 */
export interface MemorySpillWriter extends SpillWriter {
  readonly files: ReadonlyMap<string, string>
}

/**
 * Makes an in-memory spill writer (see `MemorySpillWriter`).
 *
 * @example
 * const writer = makeMemorySpillWriter()
 * await writer.write('/s', '/s/a.txt', 'x') // => 'written'
 * writer.files.get('/s/a.txt') // => 'x'
 */
export const makeMemorySpillWriter = (): MemorySpillWriter => {
  const files = new Map<string, string>()
  return {
    files,
    write: async (directory, path, content) => {
      const { target } = resolveSpillTarget(directory, path)
      if (files.get(target) === content) return 'exists'
      files.set(target, content)
      return 'written'
    },
  }
}
