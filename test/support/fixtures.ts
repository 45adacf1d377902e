// The repository's own copies of the shared inputs (fixtures/: conformance cases and recorded
// sessions, files over 100 KB gzipped). Tests read them here, never from a sibling folder.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readTextFile } from '../../src/shell/read-text.js'

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** `fixtures/` at the repository root. */
export const FIXTURES = resolve(ROOT, 'fixtures')

/**
 * The path of a fixture given its path under `fixtures/` as the shared folder names it
 * (`sessions/claude-code/short.jsonl`): that file, or its `.gz` copy when only that exists.
 * Throws when neither exists, naming the path.
 */
export const fixturePath = (relative: string): string => {
  const plain = resolve(FIXTURES, relative)
  if (existsSync(plain)) return plain
  if (existsSync(`${plain}.gz`)) return `${plain}.gz`
  throw new Error(`fixture ${relative}: neither fixtures/${relative} nor fixtures/${relative}.gz exists`)
}

/** The text of a fixture (gunzipped when stored compressed). */
export const readFixture = (relative: string): string => readTextFile(fixturePath(relative))
