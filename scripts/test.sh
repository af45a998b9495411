#!/usr/bin/env bash
# The whole test suite: the type check (strict, no unused code), then one run of Node's
# test runner: unit tests, the API tests on SQLite and on PostgreSQL (each API test file
# runs once per backend), CLI and browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc --noEmit -p .
shopt -s nullglob globstar
files=(test/**/*.test.ts)
exec node --test --import tsx --test-concurrency=2 --test-timeout=180000 "${files[@]}"
