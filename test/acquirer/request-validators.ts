/**
 * Test support for the Adyen stand-ins: a validator per path that takes a JSON body by POST,
 * compiled from one of Adyen's OpenAPI documents (JSON Schema 2020-12, read by Ajv as Prism's
 * validating proxy reads it; docs/testing.md). `closed`: a property the schema does not name is a
 * violation too.
 */
import fs from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export function requestValidators(file: string, id: string, { closed = false } = {}): Record<string, ValidateFunction> {
  const document = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    paths: Record<string, { post?: { requestBody?: { content: { 'application/json': { schema: { $ref: string } } } } } }>;
    components: { schemas: Record<string, unknown> };
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const local = (ref: string) => ref.replaceAll('#/components/schemas/', `${id}#/$defs/`);
  ajv.addSchema({ $id: id, $defs: JSON.parse(local(JSON.stringify(document.components.schemas))) as Record<string, unknown> });
  return Object.fromEntries(
    Object.entries(document.paths)
      .filter(([, item]) => item.post?.requestBody)
      .map(([route, item]) => {
        const ref = local(item.post!.requestBody!.content['application/json'].schema.$ref);
        return [route, ajv.compile({ $ref: ref, ...(closed ? { unevaluatedProperties: false } : {}) })];
      }),
  );
}
