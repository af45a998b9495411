/**
 * The OpenAPI document (src/contract/): served as generated, covering every route Kassa has under
 * the API prefix and every problem type of the registry the API answers, with examples that are Kassa's real answers.
 * That every answer of the suite keeps the document is checked by test/support/contract.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, suiteApp } from '../support/app.ts';
import { openApiDocument } from '../../src/contract/document.ts';
import { answeredProblemTypes } from '../../src/ground/problem-types.ts';

interface Operation {
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { $ref?: string }>;
}
interface OpenApi {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, { content: Record<string, { example?: unknown }> }> };
}

/** Every `METHOD /path` Fastify lists under the API prefix, path parameters written as the document writes them. */
function apiRoutes(printed: string): string[] {
  const routes: string[] = [];
  // Under Kassa's own page at `/`, the tree prints the routes below it without their leading slash.
  for (const match of printed.matchAll(/\/?(api\/v1\/\S*) \(([A-Z, ]+)\)/g)) {
    for (const method of match[2]!.split(', ')) {
      if (method !== 'HEAD') routes.push(`${method} ${match[1]!.slice('api/v1'.length).replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return routes.sort();
}

const backend = backends[0]!;

describe(`the OpenAPI document on ${backend}`, () => {
  const t = suiteApp(backend);

  test('GET {base_url}/openapi.json answers the generated document without a key, for this PUBLIC_URL', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    const served = response.json() as OpenApi;
    assert.deepEqual(served, JSON.parse(JSON.stringify(openApiDocument(t.config.publicUrl, '/api/v1'))));
    assert.deepEqual(served.servers, [{ url: 'http://kassa.test/api/v1', description: 'This Kassa' }]);
  });

  test('the document has every route Kassa serves under {base_url}, and no other', async () => {
    const document = openApiDocument(t.config.publicUrl, '/api/v1') as unknown as OpenApi;
    const documented = Object.entries(document.paths)
      .flatMap(([route, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${route}`))
      .sort();
    const served = apiRoutes(t.app.printRoutes({ commonPrefix: false }));
    assert.deepEqual(documented, served);
  });

  test('every alternative of a oneOf or anyOf has a title, so the reference page names it (not "case 1", "case 2")', () => {
    const untitled: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if ((key === 'oneOf' || key === 'anyOf') && Array.isArray(value)) {
          value.forEach((branch, i) => typeof (branch as { title?: unknown }).title !== 'string' && untitled.push(`${at}/${key}/${i}`));
        }
        walk(value, `${at}/${key}`);
      }
    };
    walk(openApiDocument(t.config.publicUrl, '/api/v1'), '');
    assert.deepEqual(untitled, []);
  });

  test('the reference page has a section for every problem type the API answers (ground/problem-types.ts), and no other', () => {
    const description = (openApiDocument(t.config.publicUrl, '/api/v1') as unknown as { info: { description: string } }).info.description;
    const sections = [...description.matchAll(/<span id="problem-([^"]+)"><\/span>/g)].map((match) => match[1]);
    assert.deepEqual(
      sections,
      answeredProblemTypes.map((problem) => problem.slug),
    );
  });

  test("every problem type is an address of this Kassa's reference page with a section of that name", async () => {
    const document = openApiDocument(t.config.publicUrl, '/api/v1') as unknown as OpenApi & {
      info: { description: string };
      components: { schemas: { Problem: { properties: { type: { enum: string[] } } } } };
    };
    const types = document.components.schemas.Problem.properties.type.enum;
    assert.equal(types.length, answeredProblemTypes.length);
    for (const type of types) {
      const address = new URL(type);
      assert.equal(`${address.origin}${address.pathname}`, `${t.config.publicUrl}/docs`);
      assert.ok(document.info.description.includes(`<span id="${address.hash.slice(1)}"></span>`), type);
    }
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(page.statusCode, 200);
    const notFound = (await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' })).json() as { type: string };
    assert.equal(notFound.type, `${t.config.publicUrl}/docs#problem-not-found`);
  });

  test('the request examples are accepted and the 422 example is what Kassa answers for its mistakes', async () => {
    const document = openApiDocument(t.config.publicUrl, '/api/v1') as unknown as OpenApi;
    const payment = document.paths['/payment']!.post!;
    const created = await t.client.post('/payment', payment.requestBody!.content['application/json']!.example);
    assert.equal(created.statusCode, 200, created.body);
    const enrollment = await t.client.post('/token', document.paths['/token']!.post!.requestBody!.content['application/json']!.example);
    assert.equal(enrollment.statusCode, 200, enrollment.body);
    const example = document.components.responses.Problem422!.content['application/problem+json']!.example as { errors: unknown[] };
    const refused = await t.client.post('/payment', { amount: '10.505', currency: 'EUR', method: 'card' });
    assert.equal(refused.statusCode, 422);
    // The request id is each request's own.
    assert.deepEqual({ ...(refused.json() as object), requestId: (example as { requestId?: string }).requestId }, example);
  });
});
