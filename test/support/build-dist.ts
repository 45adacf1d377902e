// Vitest global setup: the tests of compiled code (the compare worker threads, the bundled CLI
// libraries, the worker-threads example) need dist/. The package has no install script (npm 11
// warns about them on every install of the tarball), so `npm ci && npm test` builds it here:
// when dist/ is missing or older than a source file.
import { execSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const newest = (dir: string): number => {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

export default function setup(): void {
  const built = join(process.cwd(), 'dist/index.js')
  if (existsSync(built) && statSync(built).mtimeMs >= newest(join(process.cwd(), 'src'))) return
  execSync('npm run build', { stdio: 'inherit' })
}
