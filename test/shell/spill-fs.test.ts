/** Tests of the spill writers: a real temporary directory for the file writer, a Map for the memory one. */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeFileSpillWriter } from '../../src/shell/node/spill-file.js'
import { SpillRefusedError, encodeSpillContent, makeMemorySpillWriter, makeRuntimeSpillWriter, resolveSpillTarget } from '../../src/shell/spill-fs.js'

describe('resolveSpillTarget', () => {
  it('accepts a file directly inside the directory, refuses anything else', () => {
    expect(resolveSpillTarget('/tmp/s', '/tmp/s/./a.txt')).toEqual({ directory: '/tmp/s', target: '/tmp/s/a.txt' })
    expect(resolveSpillTarget('/tmp/s/', '/tmp//s/a.txt').target).toBe('/tmp/s/a.txt')
    for (const path of ['/tmp/s/../a.txt', '/tmp/s/sub/a.txt', '/tmp/s', '/tmp/s/..', '/etc/passwd']) {
      expect(() => resolveSpillTarget('/tmp/s', path)).toThrow(SpillRefusedError)
    }
  })
})

describe('encodeSpillContent', () => {
  it('encodes UTF-8 and writes lone surrogates as ?', () => {
    expect(new TextDecoder().decode(encodeSpillContent('é😀'))).toBe('é😀')
    expect(new TextDecoder().decode(encodeSpillContent('a\ud800b\udc00'))).toBe('a?b?')
  })
})

describe('makeFileSpillWriter (real temporary directory)', () => {
  let root = ''
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'context-simple-spill-'))
  })
  afterEach(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('creates the directory with its parents and writes the content, leaving no temporary file', async () => {
    const directory = join(root, 'a', 'b', 'c')
    const path = `${directory}/tool-result-000042-2f6b706c271653dd.txt`
    await expect(makeFileSpillWriter().write(directory, path, 'full é content')).resolves.toBe('written')
    expect(await readFile(path, 'utf8')).toBe('full é content')
    expect(await readdir(directory)).toEqual(['tool-result-000042-2f6b706c271653dd.txt'])
  })

  it('an identical rewrite returns exists and leaves the mtime unchanged', async () => {
    const writer = makeFileSpillWriter()
    const path = join(root, 'x.txt')
    await writer.write(root, path, 'same')
    const past = new Date(Date.UTC(2020, 0, 1))
    await utimes(path, past, past)
    await expect(writer.write(root, path, 'same')).resolves.toBe('exists')
    expect((await stat(path)).mtimeMs).toBe(past.getTime())
    expect(await readdir(root)).toEqual(['x.txt'])
  })

  it('replaces a file with different content atomically', async () => {
    const writer = makeFileSpillWriter()
    const path = join(root, 'x.txt')
    await writeFile(path, 'partial')
    await expect(writer.write(root, path, 'complete')).resolves.toBe('written')
    expect(await readFile(path, 'utf8')).toBe('complete')
    expect(await readdir(root)).toEqual(['x.txt'])
  })

  it('refuses ../ traversal and writes nothing', async () => {
    const directory = join(root, 'spill')
    const error = await makeFileSpillWriter()
      .write(directory, `${directory}/../escaped.txt`, 'x')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SpillRefusedError)
    expect((error as SpillRefusedError).reason).toBe('outside_directory')
    expect(await readdir(root)).toEqual([])
  })

  it('refuses a symlinked directory', async () => {
    const real = join(root, 'real')
    await mkdir(real)
    const link = join(root, 'link')
    await symlink(real, link)
    const error = await makeFileSpillWriter()
      .write(link, `${link}/x.txt`, 'x')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SpillRefusedError)
    expect((error as SpillRefusedError).reason).toBe('directory_is_symlink')
    expect(await readdir(real)).toEqual([])
  })

  it('refuses a symlink in place of the target and leaves its destination alone', async () => {
    const outside = join(root, 'outside.txt')
    await writeFile(outside, 'precious')
    const directory = join(root, 'spill')
    await mkdir(directory)
    await symlink(outside, join(directory, 'x.txt'))
    const error = await makeFileSpillWriter()
      .write(directory, join(directory, 'x.txt'), 'overwrite?')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SpillRefusedError)
    expect((error as SpillRefusedError).reason).toBe('target_is_symlink')
    expect(await readFile(outside, 'utf8')).toBe('precious')
    expect(await readdir(directory)).toEqual(['x.txt'])
  })

  it('refuses a directory path that is a file', async () => {
    const file = join(root, 'file')
    await writeFile(file, '')
    await expect(makeFileSpillWriter().write(file, `${file}/x.txt`, 'x')).rejects.toBeInstanceOf(SpillRefusedError)
  })

  it('removes its temporary file when the rename fails', async () => {
    const directory = join(root, 'spill')
    await mkdir(join(directory, 'x.txt'), { recursive: true }) // a directory where the file should go
    await expect(makeFileSpillWriter().write(directory, join(directory, 'x.txt'), 'x')).rejects.toThrow()
    expect(await readdir(directory)).toEqual(['x.txt'])
  })
})

describe('makeMemorySpillWriter', () => {
  it('stores by resolved path, reports identical rewrites, refuses traversal', async () => {
    const writer = makeMemorySpillWriter()
    await expect(writer.write('/s', '/s/a.txt', 'x')).resolves.toBe('written')
    await expect(writer.write('/s', '/s/./a.txt', 'x')).resolves.toBe('exists')
    await expect(writer.write('/s', '/s/a.txt', 'y')).resolves.toBe('written')
    expect([...writer.files]).toEqual([['/s/a.txt', 'y']])
    await expect(writer.write('/s', '/s/../a.txt', 'x')).rejects.toBeInstanceOf(SpillRefusedError)
  })
})

describe('makeRuntimeSpillWriter (the manager’s default: the file writer over the runtime’s fs)', () => {
  it('writes files on Node like makeFileSpillWriter, and refuses the same paths', async () => {
    const root = await mkdtemp(join(tmpdir(), 'context-simple-runtime-spill-'))
    try {
      const writer = makeRuntimeSpillWriter()
      const path = join(root, 'spill', 'a.txt')
      await expect(writer.write(join(root, 'spill'), path, 'full é')).resolves.toBe('written')
      await expect(writer.write(join(root, 'spill'), path, 'full é')).resolves.toBe('exists')
      expect(await readFile(path, 'utf8')).toBe('full é')
      await expect(writer.write(join(root, 'spill'), join(root, 'x.txt'), 'x')).rejects.toBeInstanceOf(SpillRefusedError)
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
