// The code blocks of docs/frameworks.md are the files test/types/docs/frameworks-*.ts, which
// `npm run typecheck` compiles against the real framework packages (the dev pins of package.json):
// a block that names something it never defines (a tool, an agent) or an export that does not
// exist fails the type check, and a block edited without its file fails here.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const blocks = [...readFileSync('docs/frameworks.md', 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1])
const checked = (name: string): string => readFileSync(`test/types/docs/${name}.ts`, 'utf8').replaceAll("'../../../src/index.js'", "'context-simple'")

describe('docs/frameworks.md code blocks', () => {
  it('are exactly the type-checked files, the import of the package apart', () => {
    expect(blocks).toEqual([checked('frameworks-langchain'), checked('frameworks-openai-agents')])
  })
})
