// `npm run build`, also run by `npm ci` and `npm install` (the `prepare` script): compiles src/ into
// dist/ with TypeScript (tsconfig.build.json) and copies the other files src/ reads at run time (the
// wallet's PEM certificates), so that `npm start` runs plain JavaScript. Plain JavaScript itself: it
// runs before anything is compiled. A production install (`npm ci --omit=dev`) has no TypeScript:
// it keeps the build made before, and stops, saying how, when there is none.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  if (fs.existsSync(path.join(dist, 'main.js'))) {
    console.log('kassa: TypeScript is not installed (a production install): keeping the build in dist/');
    process.exit(0);
  }
  console.error('kassa: no build in dist/, and no TypeScript to make one: run `npm ci` (with the dev dependencies) once, then `npm ci --omit=dev`');
  process.exit(1);
}
fs.rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
const src = path.join(root, 'src');
for (const entry of fs.readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts') || entry.name.endsWith('.md')) continue;
  const target = path.join(dist, path.relative(src, entry.parentPath), entry.name);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(path.join(entry.parentPath, entry.name), target);
}
// The API reference page's Redoc bundle, made once here so that a production install needs neither
// the redoc package nor React (src/contract/redoc-bundle.ts).
const { writeRedocBundle } = await import(path.join(dist, 'contract', 'redoc-bundle.js'));
writeRedocBundle(path.join(dist, 'contract'));
