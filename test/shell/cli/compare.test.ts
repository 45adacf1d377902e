// The compare command end to end, in-process (no worker threads under vitest): JSON lines and
// their order, configurations in the order given, tables with totals and ratios, errors.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../support/cli.js'
import { fixturePath } from '../../support/fixtures.js'

const run = runCli

const FIELDS = ['config', 'session', 'budget', 'requests', 'boundaries', 'highest_level', 'invalid_views', 'overflows', 'prefix_breaks', 'input_tokens', 'cache_read_tokens', 'cache_write_tokens', 'uncached_input_tokens', 'cost_usd', 'relative_cost', 'needed_facts', 'recalled_facts', 'recall', 'fit_error']

/** A directory holding two small inputs: a Claude Code session and a two-trajectory tau-bench file. */
const inputsDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-compare-'))
  copyFileSync(fixturePath('sessions/claude-code/tool_heavy.jsonl'), join(dir, 'a-tool_heavy.jsonl'))
  const traj = (n: number) => [
    { role: 'system', content: 'policy '.repeat(200) },
    ...Array.from({ length: n }, (_, index) => [
      { role: 'user', content: `question ${index} ${'x'.repeat(400)}` },
      { role: 'assistant', content: null, tool_calls: [{ id: `c${index}`, type: 'function', function: { name: 'look', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: `c${index}`, content: 'result '.repeat(150) },
      { role: 'assistant', content: `answer ${index}` },
    ]).flat(),
  ]
  writeFileSync(join(dir, 'b-tau.json'), JSON.stringify([{ task_id: 7, trial: 0, reward: 1, info: {}, traj: traj(6) }, { task_id: 8, trial: 1, reward: 0, info: {}, traj: traj(3) }]))
  writeFileSync(join(dir, 'notes.txt'), 'not an input')
  return dir
}

describe('context-simple compare --json', () => {
  it('fit_error: the calibrated meter counts nearer the bill than the reference estimate on a session with readings', async () => {
    const { code, stdout } = await run(['compare', fixturePath('sessions/claude-code/tool_heavy.jsonl'), '--budget', '60000', '--preset', 'reference', '--preset', 'recommended', '--json'])
    expect(code).toBe(0)
    const [reference, recommended] = stdout.trim().split('\n').map((line) => JSON.parse(line) as { config: string; boundaries: number; fit_error: number })
    expect([reference.config, recommended.config]).toEqual(['reference', 'recommended'])
    expect(reference.boundaries + recommended.boundaries).toBe(0)
    // The estimate misses the system prompt and tools billed beside the messages.
    expect(reference.fit_error).toBeGreaterThan(0.5)
    expect(recommended.fit_error).toBeLessThan(reference.fit_error / 2)
  })

  it('prints one line per (configuration, session) in configuration, input, session order, with the listed fields', async () => {
    const dir = inputsDir()
    const config = join(mkdtempSync(join(tmpdir(), 'cs-compare-config-')), 'summary.json')
    writeFileSync(config, JSON.stringify({ compaction_strategy: 'summary' }))
    const { code, stdout, stderr } = await run(['compare', dir, '--budget', '3000', '--model', 'gpt-4o', '--preset', 'reference', '--config', config, '--preset', 'recommended', '--summarizer', 'extractive', '--json'])
    // the one warning the core logs: tool_heavy's recorded overhead (25,772 tokens) alone fills recommended's E (docs/contract.md 17.13)
    expect(stderr.split('\n').filter((line) => line !== '')).toEqual([
      expect.stringMatching(/^warning: context-simple: token_meter "calibrated": the hidden overhead fitted from .* fills the effective budget E = 2600 tokens on its own, .* \(recommended · a-tool_heavy\.jsonl\)$/),
    ])
    expect(code).toBe(0)
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.map((line) => `${line.config} ${line.session}`)).toEqual(
      [ 'reference', config, 'recommended'].flatMap((label) => [`${label} a-tool_heavy.jsonl`, `${label} b-tau.json#7-t0`, `${label} b-tau.json#8-t1`]),
    )
    for (const line of lines) for (const field of FIELDS) expect(line).toHaveProperty(field)
    for (const line of lines) {
      expect((line.cache_read_tokens as number) + (line.cache_write_tokens as number) + (line.uncached_input_tokens as number)).toBe(line.input_tokens)
      // E = 3000 − the notice reserve (800; recommended reserves 400)
      expect(line.budget).toBe(line.config === 'recommended' ? 2600 : 2200)
      expect(line.invalid_views).toBe(0)
      expect(line.recalled_facts as number).toBeLessThanOrEqual(line.needed_facts as number)
      expect(line.recall).toBe((line.needed_facts as number) === 0 ? null : (line.recalled_facts as number) / (line.needed_facts as number))
    }
    const reference = lines.filter((line) => line.config === 'reference')
    expect(reference.some((line) => (line.boundaries as number) > 0)).toBe(true)
    expect(reference.every((line) => (line.cost_usd as number) > 0)).toBe(true)
    // the summary configuration absorbs spans: different views, so different figures
    const summary = lines.filter((line) => line.config === config)
    expect(summary.map((line) => line.input_tokens)).not.toEqual(reference.map((line) => line.input_tokens))
  })

  it('without a model the tau-bench sessions cost 0 with one warning naming the fix', async () => {
    const dir = inputsDir()
    const { code, stderr } = await run(['compare', join(dir, 'b-tau.json'), '--budget', '3000', '--preset', 'reference', '--json'])
    expect(code).toBe(0)
    expect(stderr.trim().split("\n")).toHaveLength(1)
    expect(stderr).toMatch(/no price for model \(none named\) in .*b-tau.json \(2 sessions\): cost_usd is 0; give --model NAME or --prices FILE/)
  })

  it('a mistyped --model gets the nearest priced model, an unknown one the list of priced models', async () => {
    const dir = inputsDir()
    const near = await run(['compare', join(dir, 'b-tau.json'), '--budget', '3000', '--model', 'gpt4o', '--preset', 'reference', '--json'])
    expect(near.stderr).toContain('no price for model gpt4o (did you mean gpt-4o?) in ')
    const far = await run(['compare', join(dir, 'b-tau.json'), '--budget', '3000', '--model', 'llama-local', '--preset', 'reference', '--json'])
    expect(far.stderr).toMatch(/no price for model llama-local \(priced models: [^)]*gpt-4o[^)]*\) in /)
  })
})

describe('context-simple compare: needed-fact recall', () => {
  it('measures recall on real tau-bench trajectories: facts needed, some lost at 4,500 tokens, all kept without a budget cut', async () => {
    const file = fixturePath('sessions/openai-chat/tau-bench-airline-gpt-4o-part1.json')
    const tight = await run(['compare', file, '--budget', '4500', '--model', 'gpt-4o', '--preset', 'reference', '--json'])
    expect(tight.code).toBe(0)
    const rows = tight.stdout.trim().split('\n').map((line) => JSON.parse(line) as { needed_facts: number; recalled_facts: number })
    const needed = rows.reduce((sum, row) => sum + row.needed_facts, 0)
    const recalled = rows.reduce((sum, row) => sum + row.recalled_facts, 0)
    expect(needed).toBeGreaterThan(300)
    expect(recalled).toBeLessThan(needed)
    const wide = await run(['compare', file, '--budget', '1000000', '--model', 'gpt-4o', '--preset', 'reference'])
    expect(wide.code).toBe(0)
    // nothing is compacted at a million tokens: every needed fact is in the view
    expect(wide.stdout).toMatch(/TOTAL .*100\.0 %/)
    expect(wide.stdout).toMatch(/│ reference\s+│.*│\s+100\.0 % │/)
  })
})

describe('context-simple compare (tables)', () => {
  it('prints a table per configuration with a TOTAL row, and the ratios against the first', async () => {
    const dir = inputsDir()
    const { code, stdout } = await run(['compare', dir, '--budget', '3000', '--model', 'gpt-4o', '--preset', 'reference', '--preset', 'recommended-summary', '--summarizer', 'extractive'])
    expect(code).toBe(0)
    expect(stdout).toContain('configuration 1: reference')
    expect(stdout).toContain('configuration 2: recommended-summary')
    expect(stdout.match(/TOTAL/g)).toHaveLength(2)
    expect(stdout).toMatch(/totals \(x = ratio against reference\)/)
    expect(stdout).toMatch(/│ reference\s+│.*│\s+1\.00 │\s+1\.00 │\s+1\.00 │\s+1\.00 │/)
  })
})

describe('context-simple compare: --set in the labels', () => {
  it('labels each configuration with the overrides --set laid over it, in the tables and the JSON lines', async () => {
    const file = fixturePath('sessions/claude-code/tool_heavy.jsonl')
    const config = join(mkdtempSync(join(tmpdir(), 'cs-compare-config-')), 'summary.json')
    writeFileSync(config, JSON.stringify({ compaction_strategy: 'summary' }))
    const args = ['compare', file, '--budget', '3000', '--preset', 'recommended', '--config', config, '--set', 'tool_result_json_projection=named_keys', '--set', 'protected_tool_results=2', '--summarizer', 'extractive']
    const suffix = ' + tool_result_json_projection=named_keys + protected_tool_results=2'
    const json = await run([...args, '--json'])
    expect(json.code).toBe(0)
    const rows = json.stdout.trim().split('\n').map((line) => JSON.parse(line) as { config: string })
    expect(rows.map((row) => row.config)).toEqual([`recommended${suffix}`, `${config}${suffix}`])
    const tables = await run(args)
    expect(tables.code).toBe(0)
    expect(tables.stdout).toContain(`configuration 1: recommended${suffix}\n`)
    expect(tables.stdout).toContain(`configuration 2: ${config}${suffix}\n`)
    expect(tables.stdout).toContain(`totals (x = ratio against recommended${suffix})`)
    // without --set the label stays the preset's name alone
    const plain = await run(['compare', file, '--budget', '3000', '--preset', 'recommended', '--json'])
    expect((JSON.parse(plain.stdout.trim()) as { config: string }).config).toBe('recommended')
  })

  it('labels a key given twice with its last value only, the value the run used, and warns about the one overridden', async () => {
    const file = fixturePath('sessions/claude-code/short.jsonl')
    const { code, stdout, stderr } = await run(['compare', file, '--budget', '3000', '--preset', 'recommended', '--set', 'target_usage=0.3', '--set', 'target_usage=0.35', '--json'])
    expect(code).toBe(0)
    expect((JSON.parse(stdout.trim()) as { config: string }).config).toBe('recommended + target_usage=0.35')
    expect(stderr).toContain('warning: --set target_usage=0.3 is overridden by --set target_usage=0.35 (the last --set of a key wins)\n')
  })

  // exit 2, and no row labelled with an override nothing applied (an unknown key) or a value the run would not use (a fall-back value)
  it.each([
    ['a key that is not a configuration key', 'unknown_key=1', '--set unknown_key=1: unknown configuration key unknown_key, did you mean'],
    ['a value a configuration object would only warn about and replace', 'token_meter=bogus', '--set token_meter=bogus: token_meter does not take "bogus": expected "estimate", "actual", "hybrid" or "calibrated"'],
    ['a value a configuration object would keep and disable', 'compact_clear_at_least=Infinity', '--set compact_clear_at_least=Infinity: compact_clear_at_least does not take "Infinity": expected null, true or false, or a finite number or numeric string'],
  ])('rejects --set with %s', async (_case, setting, message) => {
    const file = fixturePath('sessions/claude-code/short.jsonl')
    const { code, stdout, stderr } = await run(['compare', file, '--budget', '3000', '--preset', 'recommended', '--set', setting, '--json'])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain(message)
  })
})

describe('context-simple compare: the warnings the core logs while replaying', () => {
  it('prints each distinct one once on stderr with its count and the runs it came from, as replay does', async () => {
    // an unparseable compact_clear_at_least in a --config file (not --set, which rejects it) is kept and warns at every escalation
    const file = fixturePath('sessions/claude-code/tool_heavy.jsonl')
    const config = join(mkdtempSync(join(tmpdir(), 'cs-compare-warn-')), 'lots.json')
    writeFileSync(config, JSON.stringify({ compact_clear_at_least: 'lots' }))
    const message = "warning: context-simple: compact_clear_at_least='lots' is not a number"
    const replayed = await run(['replay', file, '--budget', '3000', '--config', config, '--json', '--no-views'])
    const logged = replayed.stderr.split('\n').filter((line) => line.startsWith(message))
    expect(logged).toHaveLength(1)
    const times = Number(/ \((\d+) times\)$/.exec(logged[0])?.[1] ?? 1)
    const compared = await run(['compare', file, '--budget', '3000', '--preset', 'reference', '--config', config, '--json'])
    expect(compared.code).toBe(0)
    const lines = compared.stderr.split('\n').filter((line) => line.startsWith(message))
    expect(lines).toHaveLength(1)
    expect(lines[0].endsWith(`(${times > 1 ? `${times} times, ` : ''}${config} · tool_heavy.jsonl)`)).toBe(true)
    const rows = compared.stdout.trim().split('\n').map((line) => JSON.parse(line) as { config: string })
    expect(rows.map((row) => row.config)).toEqual(['reference', config])
    // the same message in two runs is one line naming both
    const twice = await run(['compare', file, '--budget', '3000', '--config', config, '--config', config, '--json'])
    const both = twice.stderr.split('\n').filter((line) => line.startsWith(message))
    expect(both).toHaveLength(1)
    expect(both[0].endsWith(`(${times * 2} times in 2 runs, the first ${config} (1) · tool_heavy.jsonl)`)).toBe(true)
  })
})

describe('context-simple compare in worker threads (the compiled CLI)', () => {
  const bin = join(process.cwd(), 'bin/context-simple.js')
  const built = existsSync(join(process.cwd(), 'dist/shell/cli/compare-worker.js'))
  // dist/ is built by `npm run build` and by the tests' global setup (test/support/build-dist.ts); the worker file is compiled JavaScript.
  it.skipIf(!built)('--jobs 2 prints the same lines as --jobs 1', () => {
    const dir = inputsDir()
    const args = [bin, 'compare', dir, '--budget', '3000', '--model', 'gpt-4o', '--preset', 'reference', '--preset', 'recommended-summary', '--summarizer', 'extractive', '--json', '--no-progress']
    const one = spawnSync(process.execPath, [...args, '--jobs', '1'], { encoding: 'utf8' })
    const two = spawnSync(process.execPath, [...args, '--jobs', '2'], { encoding: 'utf8' })
    expect(one.status).toBe(0)
    expect(two.status).toBe(0)
    expect(two.stdout).toBe(one.stdout)
    expect(one.stdout.trim().split('\n')).toHaveLength(6)
  })
})
