#!/bin/bash
# Packs the library, installs the tarball into an empty project and checks what a user gets:
# no SDK is installed (they are optional peer dependencies), `npx context-simple replay` runs,
# and a TypeScript file using the public types compiles against the published .d.ts with
# skipLibCheck false and no SDK present (@types/node only). Prints the tarball and install sizes.
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
for sdk in openai ai @anthropic-ai/sdk @ai-sdk/provider; do
  if [ -e "node_modules/$sdk" ]; then echo "FAIL: $sdk was installed"; exit 1; fi
done
echo "no SDK installed: openai, ai, @anthropic-ai/sdk, @ai-sdk/provider absent"
npx --no-install context-simple replay >/dev/null
echo "npx context-simple replay: ok"
cat > check.ts <<'TS'
import { ContextManager, makeMittHooks, type ContextConfig, type ProviderUsage, type OpenAiChatMessage } from 'context-simple'
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
echo "tarball: $(du -k "$tarball" | cut -f1) KiB; node_modules after install: $(du -sk node_modules | cut -f1) KiB, of which context-simple $(du -sk node_modules/context-simple | cut -f1) KiB and the test's own @types/node $(du -sk node_modules/@types/node | cut -f1) KiB; $(ls node_modules | grep -v '^@' | wc -l) unscoped packages: $(ls node_modules | tr '\n' ' ')"
