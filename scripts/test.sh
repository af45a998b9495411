#!/usr/bin/env bash
# The whole test suite: the type check (strict, no unused code), the compiled build (dist/,
# which `npm start` runs), the linter, the format check and the dependency rules
# (docs/architecture.md), then one run of Node's test
# runner: unit tests, the API tests on SQLite and on PostgreSQL (each API test file runs
# once per backend), CLI and browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc --noEmit -p .
npm run build --silent
npx eslint .
npx biome format .
npx depcruise src --config .dependency-cruiser.cjs
shopt -s nullglob globstar
files=(test/**/*.test.ts)
exec node --test --import tsx --test-concurrency=2 --test-timeout=180000 "${files[@]}"
