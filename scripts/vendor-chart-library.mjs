// Build step: copy the chart library (uPlot, a dev dependency) into dist/vendor/uplot so the
// published package carries it and `context-simple report` works without installing it.
import { copyFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const source = dirname(createRequire(import.meta.url).resolve('uplot/package.json'))
const target = join(root, 'dist', 'vendor', 'uplot')
mkdirSync(target, { recursive: true })
for (const [from, to] of [['dist/uPlot.iife.min.js', 'uPlot.iife.min.js'], ['dist/uPlot.min.css', 'uPlot.min.css'], ['LICENSE', 'LICENSE'], ['package.json', 'package.json']]) {
  copyFileSync(join(source, from), join(target, to))
}
