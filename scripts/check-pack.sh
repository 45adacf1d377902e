#!/bin/bash
# Packs the library, installs the tarball into an empty project and checks what a user gets:
# no SDK is installed (they are optional peer dependencies), none of the CLI's libraries is
# installed (commander, cli-table3, cli-progress and what they pull in are bundled into
# dist/vendor/cli-libraries.js at build time), `npx context-simple replay`, `compare` (two
# worker threads, with the progress bar on a pseudo-terminal) and `report` run, and a TypeScript file using the public types compiles against the published .d.ts with
# skipLibCheck false and no SDK present (@types/node only), the main entry bundles for the browser
# (esbuild, no externals) and runs under Node, Deno and Bun. Prints the tarball, install and
# bundle sizes.
# Needs the npm registry for the library's own dependencies. Usage: bash scripts/check-pack.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
npm pack --silent --pack-destination "$work" >/dev/null
tarball=$(ls "$work"/*.tgz)
mkdir "$work/app" && cd "$work/app"
npm init -y >/dev/null
npm install --silent --no-audit --no-fund "$tarball" "@types/node@$(node -p "require('$root/package.json').devDependencies['@types/node']")" >/dev/null 2>&1
for sdk in openai ai @anthropic-ai/sdk @ai-sdk/provider langchain @langchain/core @openai/agents; do
  if [ -e "node_modules/$sdk" ]; then echo "FAIL: $sdk was installed"; exit 1; fi
done
echo "no SDK installed: openai, ai, @anthropic-ai/sdk, @ai-sdk/provider, langchain, @langchain/core, @openai/agents absent"
cli_libraries="commander cli-table3 cli-progress string-width strip-ansi ansi-regex emoji-regex is-fullwidth-code-point @colors/colors"
for library in $cli_libraries; do
  if [ -e "node_modules/$library" ]; then echo "FAIL: $library was installed (the CLI's libraries must be bundled, not dependencies)"; exit 1; fi
done
echo "no CLI library installed: $cli_libraries absent"
node -e "const s = require('./node_modules/context-simple/package.json').scripts ?? {}; const found = ['preinstall', 'install', 'postinstall', 'prepare'].filter((k) => k in s); if (found.length > 0) { console.log('FAIL: install scripts in the published package.json: ' + found.join(', ')); process.exit(1) }"
echo "no install script in the published package.json"
npx --no-install context-simple replay >/dev/null
echo "npx context-simple replay: ok"
session=node_modules/context-simple/sessions/claude-code-tool-heavy.jsonl
# compare and report bill the views with the provider model, which counts with the optional peer
# gpt-tokenizer (docs/evaluation.md, "The provider model"): without it they stop naming the fix;
# replay (recorded readings) needs nothing. The sizes below are measured before installing it.
installed_kib=$(du -sk --exclude=@types --exclude=undici-types node_modules | cut -f1)
if npx --no-install context-simple compare $session --window 40000 --max-output 8000 --preset reference >/dev/null 2>compare-error.txt; then echo "FAIL: compare ran without gpt-tokenizer"; exit 1; fi
grep -q 'npm install gpt-tokenizer' compare-error.txt || { echo "FAIL: compare without gpt-tokenizer did not name the fix"; cat compare-error.txt; exit 1; }
echo "npx context-simple compare without gpt-tokenizer: refused, naming npm install gpt-tokenizer: ok"
npm install --silent --no-audit --no-fund "gpt-tokenizer@$(node -p "require('$root/package.json').devDependencies['gpt-tokenizer']")" >/dev/null 2>&1
# `script` gives the command a pseudo-terminal, so compare draws its progress bar (on stderr).
script -qec "npx --no-install context-simple compare $session --window 40000 --max-output 8000 --preset reference --preset recommended --jobs 2" /dev/null > compare.txt
grep -q 'comparing \[' compare.txt || { echo "FAIL: compare drew no progress bar"; cat compare.txt; exit 1; }
grep -q 'recommended' compare.txt && grep -q '┌' compare.txt || { echo "FAIL: compare printed no tables"; cat compare.txt; exit 1; }
npx --no-install context-simple compare $session --window 40000 --max-output 8000 --preset reference --preset recommended --jobs 2 --json > compare.jsonl
[ "$(wc -l < compare.jsonl)" -eq 2 ] || { echo "FAIL: compare --json printed $(wc -l < compare.jsonl) lines, expected 2"; cat compare.jsonl; exit 1; }
echo "npx context-simple compare (2 worker threads, progress bar, tables, --json): ok"
npx --no-install context-simple report --help | grep -q -- '--html' || { echo "FAIL: report --help"; exit 1; }
npx --no-install context-simple report $session --html report.html >/dev/null
grep -q 'uPlot' report.html || { echo "FAIL: the report carries no chart library"; exit 1; }
echo "npx context-simple report --help and report --html: ok ($(du -k report.html | cut -f1) KiB page)"
if npx --no-install context-simple replay --no-such-flag 2>/dev/null; then echo "FAIL: an unknown flag was accepted"; exit 1; fi
echo "npx context-simple rejects an unknown flag: ok"
# The main entry is runtime-neutral (docs/runtimes.md): a browser bundle of an app importing it
# builds with esbuild --platform=browser and no externals (a Node built-in reached fails it), the
# node subpath resolves under Node, and Deno and Bun (dev dependencies) run the installed package.
cat > browser-app.mjs <<'JS'
import { ContextManager, makeMemorySpillWriter, BUNDLED_WINDOW_TABLE } from 'context-simple'
const manager = new ContextManager({ max_tokens: 2000 }, { format: 'ai-sdk', spillWriter: makeMemorySpillWriter() })
await manager.addMessage({ role: 'user', content: [{ type: 'text', text: 'hi' }] })
const view = await manager.getMessagesForRequest()
console.log(JSON.stringify({ roles: view.map((message) => message.role), window: BUNDLED_WINDOW_TABLE.models['gpt-4o'].context_window }))
JS
"$root/node_modules/.bin/esbuild" browser-app.mjs --bundle --platform=browser --format=esm --minify --outfile=browser-app.js --log-level=error || { echo "FAIL: the main entry does not bundle for the browser"; exit 1; }
"$root/node_modules/.bin/esbuild" node_modules/context-simple/dist/index.js --bundle --platform=browser --format=esm --minify --outfile=main-entry.js --log-level=error
echo "esbuild --platform=browser bundles the main entry, no externals: ok (the whole entry $(wc -c < main-entry.js) bytes minified, $(gzip -9c main-entry.js | wc -c) gzipped; an app using the manager $(wc -c < browser-app.js) / $(gzip -9c browser-app.js | wc -c))"
expected='{"roles":["user"],"window":128000}'
[ "$(node browser-app.mjs)" = "$expected" ] || { echo "FAIL: the app under Node"; exit 1; }
node --input-type=module -e "import { makeFileSpillWriter, readTextFile, loadPriceTable, ContextManager } from 'context-simple/node'; if (typeof makeFileSpillWriter !== 'function' || typeof ContextManager !== 'function' || loadPriceTable().models['gpt-4o'].input !== 2.5) process.exit(1)" || { echo "FAIL: context-simple/node"; exit 1; }
echo "context-simple/node under Node: ok"
if [ -x "$root/node_modules/.bin/deno" ]; then
  [ "$("$root/node_modules/.bin/deno" run --allow-read --allow-env browser-app.mjs)" = "$expected" ] || { echo "FAIL: the installed package under Deno"; exit 1; }
  echo "the installed package under Deno $("$root/node_modules/.bin/deno" --version | head -1 | cut -d' ' -f2): ok"
fi
if [ -x "$root/node_modules/.bin/bun" ]; then
  [ "$("$root/node_modules/.bin/bun" browser-app.mjs)" = "$expected" ] || { echo "FAIL: the installed package under Bun"; exit 1; }
  echo "the installed package under Bun $("$root/node_modules/.bin/bun" --version): ok"
fi
cat > check.ts <<'TS'
import { ContextManager, makeMittHooks, type ContextConfig, type ProviderUsage, type OpenAiChatMessage } from 'context-simple'
import { makeFileSpillWriter, loadPriceTable, type SpillWriter } from 'context-simple/node'
const writer: SpillWriter = makeFileSpillWriter()
void writer
void loadPriceTable().models
const config: ContextConfig = { token_meter: 'hybrid', strict: true }
const manager = new ContextManager(config, { hooks: makeMittHooks() })
const usage: ProviderUsage = { input_tokens: 4, cache_read_input_tokens: 9000, cache_creation_input_tokens: 300 }
const view: Array<OpenAiChatMessage> = [{ role: 'user', content: 'hi' }]
void manager.onLlmResponse({ usage })
void view
TS
cat > tsconfig.json <<'JSON'
{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "skipLibCheck": false, "noEmit": true, "types": ["node"] }, "files": ["check.ts"] }
JSON
"$root/node_modules/.bin/tsc" -p tsconfig.json
echo "published .d.ts compile with skipLibCheck false and no SDK: ok"
# The same without Node's type definitions: the public types name no Node type (Buffer, NodeJS.*).
sed -i 's/"types": \["node"\]/"types": []/' tsconfig.json
"$root/node_modules/.bin/tsc" -p tsconfig.json
echo "published .d.ts compile without @types/node too: ok"
echo "tarball: $(du -k "$tarball" | cut -f1) KiB; node_modules after installing the tarball: ${installed_kib} KiB without the test's @types/node and undici-types; after adding gpt-tokenizer: $(du -sk node_modules | cut -f1) KiB ($(du -sk --exclude=@types --exclude=undici-types node_modules | cut -f1) KiB without the test's @types/node and undici-types), of which context-simple $(du -sk node_modules/context-simple | cut -f1) KiB and the test's own @types/node $(du -sk node_modules/@types/node | cut -f1) KiB; $(ls node_modules | grep -v '^@' | wc -l) unscoped packages beside the scopes: $(ls node_modules | tr '\n' ' ')"
