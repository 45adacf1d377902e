/**
 * Reads the chart library (uPlot) that the HTML report inlines: from `dist/vendor/uplot`, where
 * the build copies it so the published package carries it, else from the dev install.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The chart library's code and style sheet as text, its version, and the folder they came from.
 *
 * @example
 * const library: ChartLibrary = { script: '/*! uPlot ...', style: '.uplot{...}', version: '1.6.32', source: '/app/node_modules/context-simple/dist/vendor/uplot' }
 */
export interface ChartLibrary {
  readonly script: string
  readonly style: string
  readonly version: string
  readonly source: string
}

/**
 * A chart library that cannot be found: neither the build's copy nor a dev install exists.
 *
 * @example
 * new ChartLibraryMissingError('...: run `npm run build`')
 */
export class ChartLibraryMissingError extends Error {
  override readonly name = 'ChartLibraryMissingError'
}

// src/shell/report and dist/shell/report are both three levels below the package root.
const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

const candidates = (): string[] => {
  const folders = [join(packageRoot, 'dist', 'vendor', 'uplot')]
  try {
    const installed = dirname(createRequire(import.meta.url).resolve('uplot/package.json'))
    folders.push(join(installed, 'dist'))
  } catch {
    // not installed: a published package relies on its dist/vendor copy
  }
  return folders
}

let loaded: ChartLibrary | null = null

/**
 * Load the chart library once per process (later calls return the same object). Throws
 * `ChartLibraryMissingError` naming the folders looked at when none holds the files.
 *
 * @example
 * loadChartLibrary().script.length > 10_000 // => true
 */
export const loadChartLibrary = (): ChartLibrary => {
  if (loaded !== null) return loaded
  const looked = candidates()
  for (const folder of looked) {
    const script = join(folder, 'uPlot.iife.min.js')
    const style = join(folder, 'uPlot.min.css')
    if (!existsSync(script) || !existsSync(style)) continue
    const manifest = [join(folder, 'package.json'), join(folder, '..', 'package.json')].find(existsSync)
    const version = manifest === undefined ? 'unknown' : String((JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }).version ?? 'unknown')
    loaded = { script: readFileSync(script, 'utf8'), style: readFileSync(style, 'utf8'), version, source: folder }
    return loaded
  }
  throw new ChartLibraryMissingError(`the chart library (uPlot) is missing: looked in ${looked.join(', ')}; run \`npm run build\` to copy it into dist/vendor/uplot`)
}
