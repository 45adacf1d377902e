// readTextFile: plain and gzipped files give the same text; gzip is recognised by its magic bytes.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { readTextFile } from '../../src/shell/read-text.js'

describe('readTextFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-read-text-'))
  const text = '{"op":"add_message","message":{"role":"user","content":"héllo 𝄞"}}\n'

  it('reads a plain file as UTF-8', () => {
    writeFileSync(join(dir, 'plain.jsonl'), text)
    expect(readTextFile(join(dir, 'plain.jsonl'))).toBe(text)
  })

  it('gunzips a gzipped file, whatever its name', () => {
    writeFileSync(join(dir, 'packed.jsonl'), gzipSync(Buffer.from(text, 'utf8')))
    expect(readTextFile(join(dir, 'packed.jsonl'))).toBe(text)
  })

  it('throws for a file that starts like gzip but is not', () => {
    writeFileSync(join(dir, 'broken.gz'), Buffer.from([0x1f, 0x8b, 0x00, 0x01]))
    expect(() => readTextFile(join(dir, 'broken.gz'))).toThrow()
  })
})
