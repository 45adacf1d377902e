// Runs one of the repository's check scripts (scripts/*.mjs) with node, as npm test does, and
// returns its exit code with what it printed (stdout when it passes, stderr when it fails).
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'

export const runScript = (script: string, ...args: string[]): { code: number; output: string } => {
  try {
    const output = execFileSync(process.execPath, [resolve(process.cwd(), script), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    return { code: 0, output }
  } catch (error) {
    const failure = error as { status: number; stderr: string }
    return { code: failure.status, output: failure.stderr }
  }
}
