/**
 * The file-system spill writer on Node's own `fs` (SPEC 11.5), exported by `context-simple/node`.
 * Its logic is `makeFileSpillWriterOver` in src/shell/spill-fs.ts, shared with the manager's
 * default writer (`makeRuntimeSpillWriter`), which finds the same modules at run time instead.
 */
import { lstat, mkdir, readFile, realpath, rename, unlink, writeFile } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import { makeFileSpillWriterOver, type SpillWriter } from '../spill-fs.js'

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
 * encoded as UTF-8 with lone surrogates written as `?`. A manager given no `spillWriter` uses the
 * same writer (`makeRuntimeSpillWriter`); import this one to pass it to a runner of your own.
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
export const makeFileSpillWriter = (): SpillWriter =>
  makeFileSpillWriterOver({ lstat, mkdir, readFile, realpath, rename, unlink, writeFile, paths: { resolve, dirname, basename } })
