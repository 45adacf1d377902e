/**
 * Spill writers (SPEC 11.5): put the full original of a truncated tool result in a file inside the
 * spill directory, atomically and idempotently, refusing path traversal and symlinks.
 */
import { randomBytes } from 'node:crypto'
import { lstat, mkdir, readFile, realpath, rename, unlink, writeFile } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'

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
 * await makeFileSpillWriter().write('/tmp/s', '/tmp/s/../x.txt', 'x').catch((e) => e instanceof SpillRefusedError) // => true
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
 * Typed `Uint8Array` (a Node `Buffer` at run time) so the published types need no Node types.
 *
 * @example
 * encodeSpillContent('é').length // => 2
 */
export const encodeSpillContent = (content: string): Uint8Array => spillBytes(content)

/** `encodeSpillContent` as the Node `Buffer` it is, for the writer's byte comparison. */
const spillBytes = (content: string): Buffer => Buffer.from(content.replace(LONE_SURROGATE, '?'), 'utf8')

/**
 * Resolves `directory` and `path` (relative ones against the working directory) and checks that the
 * file lies directly inside the directory. Returns both absolute paths; throws `SpillRefusedError`
 * (`outside_directory`) otherwise, e.g. for `dir/../x.txt`, `dir/sub/x.txt` or `dir` itself.
 *
 * @example
 * resolveSpillTarget('/tmp/s', '/tmp/s/./a.txt') // => { directory: '/tmp/s', target: '/tmp/s/a.txt' }
 */
export const resolveSpillTarget = (directory: string, path: string): { readonly directory: string; readonly target: string } => {
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

/** `lstat` that resolves to null when nothing exists at `path`. */
const lstatOrNull = async (path: string) => {
  try {
    return await lstat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/** Refuses when `path`, resolved by the operating system, is not the file at `target`. */
const requireResolvablePointer = async (path: string, target: string): Promise<void> => {
  const [viaPointer, written] = await Promise.all([realpath(path).catch(() => null), realpath(target).catch(() => null)])
  if (viaPointer === null || viaPointer !== written) {
    throw new SpillRefusedError(`spill path ${JSON.stringify(path)} does not lead to the file written (${JSON.stringify(target)})`, path, 'pointer_unresolvable')
  }
}

/**
 * The file-system spill writer. For each write:
 * 1. refuses (`SpillRefusedError`) a `path` that is not directly inside `directory` after
 *    resolution (`..`, subdirectories, the directory itself);
 * 2. refuses when `directory` (the last component, checked with `lstat`) is a symlink or is not a
 *    directory; creates it with its parents when missing;
 * 3. refuses when the target is a symlink; when the target is a file whose bytes equal the content,
 *    resolves `'exists'` without writing (its mtime is unchanged);
 * 4. otherwise writes a temporary file (`.<name>.<random>.tmp`, created exclusively) in the same
 *    directory and renames it over the target, so readers never see a partial file;
 * 5. refuses (`pointer_unresolvable`) when `path` as the operating system resolves it (the
 *    pointer the model reads) does not lead to the file written, e.g. a directory
 *    `missing/../out` whose `missing` does not exist (SPEC 17.9: never point at a path that does
 *    not hold the content).
 * It deletes nothing except its own temporary file when writing or renaming fails. Content is
 * encoded as UTF-8 with lone surrogates written as `?`.
 *
 * @example
 * import { mkdtempSync } from 'node:fs'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 * const directory = mkdtempSync(join(tmpdir(), 'spill-'))
 * const path = join(directory, 'tool-result-000001-0123456789abcdef.txt')
 * const writer = makeFileSpillWriter()
 * await writer.write(directory, path, 'full') // => 'written'
 * await writer.write(directory, path, 'full') // => 'exists'
 */
export const makeFileSpillWriter = (): SpillWriter => ({
  write: async (directory, path, content) => {
    const resolved = resolveSpillTarget(directory, path)
    const directoryStat = await lstatOrNull(resolved.directory)
    if (directoryStat === null) {
      await mkdir(resolved.directory, { recursive: true })
      const created = await lstat(resolved.directory)
      if (created.isSymbolicLink()) {
        throw new SpillRefusedError(`spill directory ${JSON.stringify(directory)} is a symlink`, path, 'directory_is_symlink')
      }
    } else if (directoryStat.isSymbolicLink()) {
      throw new SpillRefusedError(`spill directory ${JSON.stringify(directory)} is a symlink`, path, 'directory_is_symlink')
    } else if (!directoryStat.isDirectory()) {
      throw new SpillRefusedError(`spill directory ${JSON.stringify(directory)} is not a directory`, path, 'directory_not_a_directory')
    }
    const bytes = spillBytes(content)
    const targetStat = await lstatOrNull(resolved.target)
    if (targetStat !== null) {
      if (targetStat.isSymbolicLink()) {
        throw new SpillRefusedError(`spill target ${JSON.stringify(path)} is a symlink`, path, 'target_is_symlink')
      }
      if (targetStat.isFile() && targetStat.size === bytes.length && bytes.equals(await readFile(resolved.target))) {
        await requireResolvablePointer(path, resolved.target)
        return 'exists'
      }
    }
    const temporary = resolve(resolved.directory, `.${basename(resolved.target)}.${randomBytes(6).toString('hex')}.tmp`)
    try {
      await writeFile(temporary, bytes, { flag: 'wx' })
      await rename(temporary, resolved.target)
    } catch (error) {
      await unlink(temporary).catch(() => undefined)
      throw error
    }
    await requireResolvablePointer(path, resolved.target)
    return 'written'
  },
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
