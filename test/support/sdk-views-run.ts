/**
 * The run behind test/sdk-views.test.ts and scripts/measure-sdk-views.ts: every sampled view of
 * the sources goes through the SDK code of its format (test/support/sdk-senders.ts) to the fake
 * provider; counts of views tried and failed per format and SDK, with the first problems.
 */
import { SDKS_BY_FORMAT, type ViewSender } from './sdk-senders.js'
import { viewsOf, type SourceErrors, type ViewSource } from './session-views.js'

/** Tried and failed views of one format through one SDK, for one kind of source; `examples`: the first few problems. */
export interface SdkViewCount {
  readonly kind: ViewSource['kind']
  readonly format: string
  readonly sdk: string
  tried: number
  failed: number
  /** Views the AI SDK warned about (and sent). */
  warned: number
  readonly examples: Array<string>
  readonly warnings: Array<string>
}

/** The counts of a run, keyed `kind|format|sdk`, and what the managers refused. */
export interface SdkViewRun {
  readonly counts: Map<string, SdkViewCount>
  readonly errors: SourceErrors
}

/** Runs every source's sampled views through `send`; `config` overrides each manager's configuration. */
export const runSdkViews = async (
  sources: ReadonlyArray<ViewSource>,
  send: ViewSender,
  options: { readonly samples: number; readonly config?: Readonly<Record<string, unknown>>; readonly examples?: number },
): Promise<SdkViewRun> => {
  const counts = new Map<string, SdkViewCount>()
  const errors: SourceErrors = { refusedMessages: [], failedRequests: [] }
  for (const source of sources) {
    for (const format of Object.keys(SDKS_BY_FORMAT) as Array<keyof typeof SDKS_BY_FORMAT>) {
      for (const sdk of SDKS_BY_FORMAT[format]) {
        const key = `${source.kind}|${format}|${sdk}`
        if (!counts.has(key)) counts.set(key, { kind: source.kind, format, sdk, tried: 0, failed: 0, warned: 0, examples: [], warnings: [] })
      }
    }
    for await (const sampled of viewsOf(source, { samples: options.samples, config: options.config, errors })) {
      for (const outcome of await send(sampled.format, sampled.view)) {
        const count = counts.get(`${source.kind}|${sampled.format}|${outcome.sdk}`)!
        count.tried += 1
        if (outcome.warnings.length > 0) {
          count.warned += 1
          for (const warning of outcome.warnings) if (count.warnings.length < 3 && !count.warnings.includes(warning)) count.warnings.push(warning)
        }
        if (outcome.problems.length === 0) continue
        count.failed += 1
        if (count.examples.length < (options.examples ?? 3)) count.examples.push(`${source.name} request ${sampled.request}: ${outcome.problems.join('; ').slice(0, 400)}`)
      }
    }
  }
  return { counts, errors }
}

/** The counts as tab-separated lines: kind, format, SDK, tried, failed, warned. */
export const formatSdkViewCounts = (run: SdkViewRun, label: string): string =>
  [...run.counts.values()].map((count) => `${label}\t${count.kind}\t${count.format}\t${count.sdk}\ttried ${count.tried}\tfailed ${count.failed}\twarned ${count.warned}`).join('\n')
