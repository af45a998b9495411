#!/usr/bin/env node
// The `kassa` admin command. It runs the compiled build in dist/ (what `npm ci` makes) when that is
// current, newer than every file of src/ (build-freshness.js, which the tests ask too): plain Node
// starts it in about half the time tsx takes. When src/ has changed since the last `npm run build`,
// it runs the TypeScript in src/ through tsx, so a command runs the code as it is, and says so on
// standard error. A production install (`npm ci --omit=dev`) has no tsx: it runs dist/.
import fs from 'node:fs';
import path from 'node:path';
import { buildIsCurrent, root } from './build-freshness.js';

const built = path.join(root, 'dist/cli/kassa.js');
let tsx;
if (!buildIsCurrent()) {
  try {
    tsx = await import('tsx/esm/api');
  } catch {}
}
if (tsx) {
  process.stderr.write('kassa: src/ is newer than the build in dist/: running the TypeScript through tsx (slower; `npm run build` brings dist/ up to date)\n');
  tsx.register();
  await import('../src/cli/kassa.ts');
} else if (fs.existsSync(built)) {
  await import('../dist/cli/kassa.js');
} else {
  process.stderr.write('kassa: no build in dist/ and no tsx to run src/: run `npm ci` in the Kassa directory\n');
  process.exitCode = 1;
}
