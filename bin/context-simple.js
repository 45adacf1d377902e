#!/usr/bin/env node
// Entry point of the `context-simple` command; the compiled CLI lives in dist/ (built by `npm ci`).
import { main } from '../dist/shell/cli/main.js'

// A reader that stops early (`| head`) closes the pipe: stop quietly instead of crashing.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code
})
