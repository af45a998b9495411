#!/usr/bin/env bash
# The whole test suite: the type check (strict, no unused code), the compiled build (dist/,
# which `npm start` runs), the linter, the format check, the dependency rules
# (docs/architecture.md) and the OpenAPI document's lint, then one run of Node's test
# runner: unit tests, the API tests on SQLite and on PostgreSQL (each API test file runs
# once per backend), CLI and browser tests. A file may take up to 10 minutes: the crash tests
# restart Kassa many times, slowly on a loaded machine.
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc --noEmit -p .
npm run build --silent
npx eslint .
npx biome format .
npx depcruise src --config .dependency-cruiser.cjs
# The OpenAPI document as Kassa serves it (src/contract/) passes Redocly's lint (redocly.yaml);
# no telemetry and no update check, so nothing leaves the machine.
openapi=$(mktemp --suffix=.json)
PUBLIC_URL=https://kassa.test node --import tsx scripts/openapi.ts > "$openapi"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint --config redocly.yaml "$openapi"
rm -f "$openapi"
shopt -s nullglob globstar
files=(test/**/*.test.ts)
exec node --test --import tsx --test-concurrency=2 --test-timeout=600000 "${files[@]}"
