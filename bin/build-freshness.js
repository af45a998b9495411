// Whether the compiled build in dist/ is current: newer than every file of src/. `kassa`
// (bin/kassa.js) then runs it, and so do the tests (test/support/process.ts); otherwise src/ has
// changed since the last `npm run build`, and running dist/ would run older code than the sources
// show. Plain JavaScript: it runs before anything is compiled.
import fs from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');

/** dist/ exists and no file of src/ was changed after it was built (an install without src/ has only dist/). */
export function buildIsCurrent() {
  const built = fs.statSync(path.join(root, 'dist/main.js'), { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return false;
  const src = path.join(root, 'src');
  if (!fs.existsSync(src)) return true;
  return fs
    .readdirSync(src, { recursive: true, withFileTypes: true })
    .every((entry) => !entry.isFile() || fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs <= built);
}
