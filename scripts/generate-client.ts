/**
 * Generates the TypeScript client's contract files from the OpenAPI document (`npm run client:generate`):
 * `openapi.json` (the document, for a fixed PUBLIC_URL so the output does not depend on the machine)
 * and `src/openapi.ts` (its types, by openapi-typescript). The client's test runs it into a temporary
 * directory and compares, so the committed files are never stale.
 *
 *   node --import tsx scripts/generate-client.ts [directory, default clients/typescript]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { API_PREFIX } from '../src/server.ts';
import { openApiDocument } from '../src/contract/document.ts';

const out = path.resolve(process.argv[2] ?? 'clients/typescript');
fs.mkdirSync(path.join(out, 'src'), { recursive: true });
const document = path.join(out, 'openapi.json');
fs.writeFileSync(document, `${JSON.stringify(openApiDocument('https://kassa.test', API_PREFIX), null, 2)}\n`);
// A field with a default stays optional in a request: Kassa fills the default in.
execFileSync('npx', ['openapi-typescript', document, '--default-non-nullable=false', '--output', path.join(out, 'src/openapi.ts')], { stdio: 'pipe' });
