#!/usr/bin/env node
// Entry point of the `context-simple` command; the compiled CLI lives in dist/ (built by `npm ci`).
import { main } from '../dist/shell/cli/main.js'

main(process.argv.slice(2)).then((code) => { process.exitCode = code })
