/**
 * The example shops (examples/) against a real Kassa process on 127.0.0.1, end to end in Chromium:
 * the customer buys in the shop, pays on Kassa's card page, comes back; the shop verifies Kassa's
 * signed webhook, reads the transaction, and refunds. The Node shop runs on @kassa/client installed
 * from its `npm pack` tarball; the PHP shop on the official PHP client, under PHP's own server
 * (skipped, saying why, without PHP).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { api, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { freePort, httpInjector, kassaCli, startKassaProcess, type KassaProcess } from '../support/process.ts';
import { phpClientAutoload, phpMissing } from '../support/php.ts';
import { chromiumMissing, launchChromium, payWithCard } from '../pages/browser.ts';
import { needs } from '../support/dependencies.ts';
import { waitFor } from '../events/support.ts';
import { installClientPackage, type InstalledClient } from '../clients/client-package.ts';

const root = path.resolve(import.meta.dirname, '../..');

interface Shop {
  url: string;
  child: ChildProcess;
  output: () => string;
}

/** Starts a shop's process and waits until its front page answers (bounded: 30 s). */
async function startShop(command: string, args: string[], options: { cwd: string; env: Record<string, string>; url: string }): Promise<Shop> {
  let output = '';
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await waitFor(
    `the shop at ${options.url}`,
    async () => {
      if (child.exitCode !== null) throw new Error(`the shop exited with ${child.exitCode}:\n${output}`);
      return (await fetch(options.url).catch(() => undefined))?.ok;
    },
    30_000,
    100,
  );
  return { url: options.url, child, output: () => output };
}

interface Order {
  reference: string;
  status: string;
  webhookVerified?: boolean;
  refund?: { reference: string; status: string };
}

const skip = needs(chromiumMissing);

describe('the example shops, end to end through the card page', { skip }, () => {
  let db: TestDatabase;
  let kassa: KassaProcess;
  let merchant: ReturnType<typeof api>;
  let env: Record<string, string>;
  let browser: Browser;
  let client: InstalledClient;
  const shops: Shop[] = [];

  before(async () => {
    db = await createTestDatabase('sqlite');
    const { merchantId, testApiKey } = JSON.parse(kassaCli(db.env, 'merchant', 'create', '--name', 'Example Shop', '--json'));
    const { secret } = JSON.parse(kassaCli(db.env, 'webhook', 'show', '--merchant', merchantId, '--json'));
    kassa = await startKassaProcess({ ...db.env, HTTP_PROCESSES: '1', RATE_LIMIT_PER_SECOND: '0', WEBHOOK_POLL_INTERVAL_MS: '50' });
    merchant = api(httpInjector(kassa.baseUrl), testApiKey);
    env = { KASSA_API_KEY: testApiKey, KASSA_WEBHOOK_SECRET: secret };
    browser = await launchChromium();
    client = installClientPackage();
  });
  after(async () => {
    for (const shop of shops) shop.child.kill('SIGKILL');
    await browser?.close();
    if (kassa?.child.exitCode === null) kassa.child.kill('SIGKILL');
    await db?.drop();
    if (client) fs.rmSync(client.dir, { recursive: true, force: true });
  });

  /** A customer buys the mug, pays on Kassa's page, is back at the shop; the shop gets the webhook, then refunds. */
  async function buyPayRefund(shop: Shop): Promise<void> {
    const context = await browser.newContext();
    const allowed = new Set([new URL(shop.url).origin, kassa.baseUrl]);
    await context.route(
      (url) => !allowed.has(url.origin),
      (route) => route.abort(),
    );
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    try {
      await page.goto(shop.url);
      await page.getByRole('button', { name: 'Buy a mug' }).click();
      await page.waitForURL(`${kassa.baseUrl}/pay/**`);
      await payWithCard(page);
      await page.waitForURL(`${shop.url}/orders/*`);
      const orderUrl = page.url();
      assert.equal(await page.locator('#status strong').textContent(), 'success', shop.output());

      const order = await waitFor('the shop to verify the webhook', async () => {
        const read = (await (await fetch(`${orderUrl}.json`)).json()) as Order;
        return read.webhookVerified && read;
      });
      const sale = (await merchant.get(`/transaction?reference=${order.reference}`)).json();
      assert.deepEqual([sale.status, sale.amount, sale.merchantOrderReference], ['success', 12.5, `order-${orderUrl.split('/').pop()}`]);

      await page.getByRole('button', { name: 'Refund this order' }).click();
      await page.locator('#refund').waitFor();
      assert.match((await page.locator('#refund').textContent())!, /: success$/, shop.output());
      const refunded = (await merchant.get(`/transaction?reference=${order.reference}`)).json();
      assert.equal(refunded.details.refundedAmount, 12.5);
    } finally {
      await context.close();
    }
  }

  test('the Node shop on @kassa/client (installed from its npm pack tarball)', async () => {
    fs.copyFileSync(path.join(root, 'examples/node-shop/shop.js'), path.join(client.dir, 'shop.js'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const shop = await startShop(process.execPath, ['shop.js'], {
      cwd: client.dir,
      env: { ...env, PORT: String(port), SHOP_URL: url, KASSA_API_URL: `${kassa.baseUrl}/api/v1` },
      url,
    });
    shops.push(shop);
    await buyPayRefund(shop);
  });

  test('the PHP shop on the official PHP client', { skip: needs(phpMissing()) }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const shop = await startShop('php', ['-S', `127.0.0.1:${port}`, 'index.php'], {
      cwd: path.join(root, 'examples/php-shop'),
      env: {
        ...env,
        SHOP_URL: url,
        KASSA_API_ROOT: `${kassa.baseUrl}/`,
        CCV_PHP_CLIENT: phpClientAutoload,
        ORDERS_FILE: path.join(client.dir, 'php-orders.json'),
      },
      url,
    });
    shops.push(shop);
    await buyPayRefund(shop);
  });
});
