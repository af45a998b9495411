/**
 * The API reference page (`PUBLIC_URL/docs`, src/contract/routes.ts) in Chromium: Redoc draws the
 * OpenAPI document with every asset from Kassa itself under the page's own CSP, and the `type` of
 * a problem Kassa answers (`PUBLIC_URL/docs#problem-<slug>`) opens the page at its section.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { chromiumMissing, SCREENSHOTS, suiteHarness } from './browser.ts';
import { needs } from '../support/dependencies.ts';

describe('the API reference page', { skip: needs(chromiumMissing) }, () => {
  const h = suiteHarness();

  test('PUBLIC_URL/docs shows the API reference, every asset from Kassa, no CSP violation', async () => {
    const { context, page, cspViolations } = await h.context();
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin !== h.baseUrl && url.protocol !== 'blob:' && url.protocol !== 'data:') elsewhere.push(request.url());
    });
    const response = await page.goto(`${h.baseUrl}/docs`);
    assert.equal(response!.status(), 200);
    assert.match(response!.headers()['content-security-policy']!, /script-src 'self';/);
    await page.getByRole('heading', { name: 'Create a payment' }).first().waitFor();
    await page.getByRole('heading', { name: 'Refund a payment' }).first().waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'docs-reference.png') });
    // Redoc's sidebar credit pointed at its vendor's logo on a CDN: the build makes it a local image (src/contract/redoc-bundle.ts).
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(elsewhere, []);
    assert.equal(await page.evaluate(() => [...document.images].filter((image) => !image.src.startsWith('data:') && !image.src.startsWith(location.origin)).length), 0);
    await context.close();
  });

  test("a problem's type resolves: PUBLIC_URL/docs#problem-<slug> opens the page at its section", async () => {
    const { context, page, cspViolations } = await h.context();
    const refused = (await h.api.post('/payment', { amount: '10.505', currency: 'EUR', method: 'card' })).json() as { type: string };
    assert.equal(refused.type, `${h.baseUrl}/docs#problem-validation-failed`);
    await page.goto(refused.type);
    await page.getByRole('heading', { name: 'Create a payment' }).first().waitFor();
    await page.waitForFunction(() => {
      // The section around the anchor (Redoc's own, `section/Problem-types/…`) is on screen.
      const box = document.getElementById('problem-validation-failed')?.closest('[data-section-id]')?.getBoundingClientRect();
      return box !== undefined && box.top < window.innerHeight && box.bottom > 0 && window.scrollY > 0;
    });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'docs-problem-type.png') });
    assert.deepEqual(cspViolations, []);
    await context.close();
  });
});
