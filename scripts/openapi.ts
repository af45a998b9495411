/**
 * Prints the merchant API's OpenAPI document, as a Kassa with this PUBLIC_URL serves it at
 * `{base_url}/openapi.json` (src/contract/document.ts), without starting a server: for the lint
 * in `npm test`, and for a merchant's own tooling.
 *
 *   PUBLIC_URL=https://pay.shop.example npm run -s openapi > openapi.json
 */
import { loadConfig } from '../src/config.ts';
import { API_PREFIX } from '../src/server.ts';
import { openApiDocument } from '../src/contract/document.ts';

process.stdout.write(`${JSON.stringify(openApiDocument(loadConfig(process.env).publicUrl, API_PREFIX), null, 2)}\n`);
