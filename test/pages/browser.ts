/**
 * Browser test support: a Kassa on a real port of 127.0.0.1 (PUBLIC_URL pointing at it),
 * Debian's Chromium through playwright-core, the merchant's returnUrl answered inside the
 * browser (no traffic leaves the machine), screenshots, and an axe-core check.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import http from 'node:http';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { api, cardPayment, startTestApp, suiteResource, type Backend, type TestApp } from '../support/app.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Why Chromium cannot run here, or undefined when it can (the suites' `skip`, through `needs`). */
export const chromiumMissing = fs.existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (Debian: apt-get install -y chromium; .ci/run installs it)`;
export const SCREENSHOTS = path.resolve('test-output/screenshots');

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Debian's Chromium, headless, with nothing of its own reaching the network. */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });

export interface BrowserHarness {
  kassa: TestApp;
  baseUrl: string;
  /** The merchant's return page: a small shop server on 127.0.0.1. */
  returnUrl: string;
  browser: Browser;
  api: ReturnType<typeof api>;
  /** A fresh browser context with the shop's returnUrl answered locally; CSP violations are collected. `reach`: other local origins it may reach (a stand-in issuer). */
  context(options?: { javaScriptEnabled?: boolean; locale?: string; reach?: string[] }): Promise<{ context: BrowserContext; page: Page; cspViolations: string[] }>;
  createPayment(overrides?: Record<string, unknown>): Promise<{ reference: string; payUrl: string }>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON and rows read by the assertions, field by field
  transaction(reference: string): Promise<Record<string, any>>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  row(reference: string): Promise<Record<string, any>>;
  close(): Promise<void>;
}

export async function startHarness(env: Record<string, string> = {}, backend: Backend = 'sqlite'): Promise<BrowserHarness> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const kassa = await startTestApp(backend, { PUBLIC_URL: baseUrl, ...env });
  await kassa.app.listen({ port, host: '127.0.0.1' });
  const browser = await launchChromium();
  const shop = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Shop</title><h1>Back at the shop</h1></html>');
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  const returnUrl = `http://127.0.0.1:${(shop.address() as net.AddressInfo).port}/return?order=42`;
  const merchantApi = api(kassa.app, kassa.merchant.testApiKey);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    kassa,
    baseUrl,
    returnUrl,
    browser,
    api: merchantApi,
    async context(options = {}) {
      const context = await browser.newContext({
        javaScriptEnabled: options.javaScriptEnabled ?? true,
        locale: options.locale ?? 'en-GB',
        viewport: { width: 1024, height: 800 },
      });
      // Only Kassa and the local shop are reachable: anything else is refused in the browser.
      const reachable = [baseUrl, new URL(returnUrl).origin, ...(options.reach ?? []).map((url) => new URL(url).origin)];
      await context.route(
        (url) => !reachable.includes(url.origin),
        (route) => route.abort(),
      );
      // A customer step that does not happen fails the test in seconds instead of waiting forever.
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      const cspViolations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
      });
      return { context, page, cspViolations };
    },
    async createPayment(overrides = {}) {
      const response = await merchantApi.post('/payment', cardPayment({ returnUrl, ...overrides }));
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    },
    async transaction(reference) {
      return (await merchantApi.get(`/transaction?reference=${reference}`)).json();
    },
    async row(reference) {
      return (await kassa.store.read.selectFrom('transactions').selectAll().where('reference', '=', reference).executeTakeFirst())!;
    },
    async close() {
      await browser.close();
      await new Promise((resolve) => shop.close(resolve));
      await kassa.close();
    },
  };
}

/** The harness of the enclosing describe: started before its tests, closed after them. */
export const suiteHarness = (backend: Backend = 'sqlite'): BrowserHarness =>
  suiteResource(
    () => startHarness({}, backend),
    (harness) => harness.close(),
  );

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** axe-core in the page or frame (evaluated, so the page's CSP does not apply to it): no serious or critical violations. */
export async function assertAccessible(page: Page | Frame, label: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    type Violation = { id: string; impact: string; help: string; nodes: { target: string[] }[] };
    const { axe } = window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } };
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  assert.deepEqual(violations, [], `${label}: accessibility violations`);
}

/** Types the card form as a customer would, and clicks Pay. */
export async function payWithCard(page: Page, card: { number?: string; expiry?: string; cvc?: string; name?: string } = {}, payLabel = /^Pay /): Promise<void> {
  await page.locator('#cardNumber').pressSequentially(card.number ?? '4111 1111 1111 1111');
  await page.locator('#expiry').pressSequentially(card.expiry ?? '12/34');
  if (card.cvc !== '' && (await page.locator('#cvc').isVisible())) await page.locator('#cvc').pressSequentially(card.cvc ?? '123');
  await page.locator('#holderName').pressSequentially(card.name ?? 'Jo Tester');
  await page.getByRole('button', { name: payLabel }).click();
}
