#!/usr/bin/env node
// The `kassa` admin command. In a development install (tsx present) it runs the TypeScript in src/,
// as the tests do; in a production install (`npm ci --omit=dev`) the compiled build in dist/.
let tsx;
try {
  tsx = await import('tsx/esm/api');
} catch {}
if (tsx) {
  tsx.register();
  await import('../src/cli/kassa.ts');
} else {
  await import('../dist/cli/kassa.js');
}
