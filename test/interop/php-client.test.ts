/**
 * The official merchant client in Kassa's own CI (docs/interop.md): the PHP library, unmodified,
 * from CCV_PHP_CLIENT (its default and how to install the library elsewhere:
 * docs/testing.md#the-official-php-client), drives a real Kassa process on 127.0.0.1, on SQLite
 * and on PostgreSQL, with the data real shop plugins send. Each library call is one run of
 * ccv-client.php and one test here, so its result is in the counts. Skipped, with the reason, only
 * when PHP (with curl and mbstring) or the library is missing; under CI that fails instead.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { api, backends, basic, createTestDatabase, type TestDatabase } from '../support/app.ts';
import { httpInjector, kassaCli, startKassaProcess, type KassaProcess } from '../support/process.ts';
import { card, openPage, postForm } from '../pages/flow.ts';
import { phpClientAutoload, phpMissing } from '../support/php.ts';
import { needs } from '../support/dependencies.ts';

const script = path.join(import.meta.dirname, 'ccv-client.php');
const run = promisify(execFile);

const skip = needs(phpMissing());

/** What ccv-client.php prints: the fields of the library's answer objects, or the ApiException. */
interface ClientAnswer {
  valid?: boolean;
  methods?: string[];
  reference?: string;
  payUrl?: string;
  status?: string;
  type?: string;
  amount?: number;
  failureCode?: string | null;
  details?: Record<string, unknown>;
  exception?: string;
  body?: { status: number; errors?: unknown[] };
}

for (const backend of backends) {
  describe(`the official PHP client against Kassa on ${backend}`, { skip }, () => {
    let db: TestDatabase;
    let kassa: KassaProcess;
    let merchant: ReturnType<typeof api>;
    let env: Record<string, string>;

    before(async () => {
      db = await createTestDatabase(backend);
      const { testApiKey } = JSON.parse(kassaCli(db.env, 'merchant', 'create', '--name', 'Interop Shop', '--json'));
      kassa = await startKassaProcess({ ...db.env, RATE_LIMIT_PER_SECOND: '0' });
      merchant = api(httpInjector(kassa.baseUrl), testApiKey);
      env = { ...(process.env as Record<string, string>), KASSA_API_ROOT: `${kassa.baseUrl}/`, KASSA_API_KEY: testApiKey, CCV_PHP_CLIENT: phpClientAutoload };
    });
    after(async () => {
      if (kassa?.child.exitCode === null) kassa.child.kill('SIGKILL');
      await db?.drop();
    });

    /** One call of the library; its JSON answer (an ApiException as `{exception, body}`). */
    async function php(step: string, args: Record<string, unknown> = {}): Promise<ClientAnswer> {
      const { stdout, stderr } = await run('php', [script, step, JSON.stringify(args)], { env, timeout: 60_000 });
      try {
        return JSON.parse(stdout);
      } catch {
        throw new Error(`${step}: ${stdout}${stderr}\nKassa's output:\n${kassa.output()}`);
      }
    }

    async function paidSale(amount: string): Promise<string> {
      const created = await php('createPayment', { amount });
      const completed = await merchant.post('/test/complete', { reference: created.reference, outcome: 'success' });
      assert.equal(completed.statusCode, 200, completed.body);
      return created.reference!;
    }

    /** An authorisation paid through Kassa's card page, as a customer does. */
    async function authorised(amount: string): Promise<string> {
      const created = await php('createPayment', { amount, authorise: true });
      const http = httpInjector(kassa.baseUrl);
      const { path: page, csrf } = await openPage(http, created.payUrl!);
      const paid = await postForm(http, `${page}/card`, { csrf, ...card() });
      assert.equal(paid.statusCode, 303, paid.body);
      return created.reference!;
    }

    test('isKeyValid: true for the merchant key, false for an unknown one', async () => {
      assert.deepEqual(await php('isKeyValid'), { valid: true });
      assert.deepEqual(await php('isKeyValid', { key: 'test_unknown' }), { valid: false });
    });

    test('getMethods lists card brands as card_<brand> and the other methods', async () => {
      const methods = (await php('getMethods')).methods ?? [];
      assert.ok(methods.includes('card_visa'), methods.join());
      assert.ok(methods.includes('card_mastercard'), methods.join());
      assert.ok(methods.includes('landingpage'), methods.join());
    });

    test('createPayment with full Dutch billing and shipping data, phones and setBrowserFromServer() data is accepted', async () => {
      const created = await php('createPayment', { amount: '10.00' });
      assert.match(created.reference ?? '', /\S/, JSON.stringify(created));
      assert.match(created.payUrl ?? '', /\/pay\//);
      const read = (await merchant.get(`/transaction?reference=${created.reference}`)).json();
      assert.deepEqual(
        [read.billingCountry, read.shippingCountry, read.billingState, read.shippingState, read.billingPhoneCountry, read.billingPhoneNumber, read.language],
        ['NL', 'NL', 'NH', 'Zuid-Holland', '31', '201234567', 'nld'],
      );
    });

    test('getPaymentStatus after completion reads success, type sale and the amount', async () => {
      const reference = await paidSale('10.00');
      const status = await php('getPaymentStatus', { reference });
      assert.deepEqual([status.status, status.type, status.amount, status.failureCode], ['success', 'sale', 10, null]);
    });

    describe('createRefund', () => {
      let sale: string;
      before(async () => {
        sale = await paidSale('10.00');
      });

      test('a partial refund is its own credit transaction', async () => {
        const refund = await php('createRefund', { reference: sale, amount: '4.00', idempotencyReference: `partial-${sale}` });
        assert.notEqual(refund.reference, sale, JSON.stringify(refund));
        const status = await php('getPaymentStatus', { reference: refund.reference });
        assert.deepEqual([status.type, status.amount, status.status], ['credit', 4, 'success']);
      });

      test('without an amount it refunds the whole remainder', async () => {
        const refund = await php('createRefund', { reference: sale });
        const status = await php('getPaymentStatus', { reference: refund.reference });
        assert.deepEqual([status.type, status.amount], ['credit', 6]);
        const read = (await merchant.get(`/transaction?reference=${sale}`)).json();
        assert.deepEqual([read.status, read.details.refundedAmount], ['success', 10]);
      });

      test('an over-refund is refused as an ApiException naming the reason', async () => {
        const refused = await php('createRefund', { reference: sale, amount: '1.00' });
        assert.equal(refused.exception, 'CCVOnlinePayments\\Lib\\Exception\\ApiException');
        assert.equal(refused.body?.status, 422);
        assert.match(JSON.stringify(refused.body?.errors), /fully_refunded|exceeds_refundable/);
      });
    });

    test('createCapture of an authorisation, then a refund of what was captured', async () => {
      const reference = await authorised('20.00');
      const capture = await php('createCapture', { reference, amount: '15.00', idempotencyReference: `capture-${reference}` });
      assert.ok(capture.reference, JSON.stringify(capture));
      const refund = await php('createRefund', { reference: capture.reference, amount: '15.00' });
      const status = await php('getPaymentStatus', { reference: refund.reference });
      assert.deepEqual([status.type, status.amount, status.status], ['credit', 15, 'success']);
      const over = await php('createRefund', { reference: capture.reference, amount: '0.01' });
      assert.equal(over.exception, 'CCVOnlinePayments\\Lib\\Exception\\ApiException');
    });

    test('createReversal releases an authorisation', async () => {
      const reference = await authorised('30.00');
      const reversal = await php('createReversal', { reference, idempotencyReference: `reversal-${reference}` });
      assert.ok(reversal.reference, JSON.stringify(reversal));
      const status = await php('getPaymentStatus', { reference });
      assert.equal(status.type, 'authorise');
      assert.equal(status.details?.captureStatus, 'reversed');
      const again = await php('createCapture', { reference });
      assert.equal(again.exception, 'CCVOnlinePayments\\Lib\\Exception\\ApiException');
    });

    test('isKeyValid with a wrong key from an address past AUTH_FAILURE_LIMIT answers false (the library retries a 429 for ever)', async (t) => {
      // Last: the address stays locked out for a minute, for every key not verified lately.
      // The flood comes from the address the PHP process connects from: 127.0.0.1; enough for each HTTP process to count past the limit on its own.
      const flood = await Promise.all(
        Array.from({ length: 100 }, () => fetch(`${kassa.baseUrl}/api/v1/method`, { headers: { authorization: basic(`test_${'F'.repeat(40)}`) } })),
      );
      assert.ok(
        flood.some((res) => res.status === 401 && res.headers.get('retry-after') !== null),
        'the address is past its allowance',
      );
      const started = performance.now();
      assert.deepEqual(await php('isKeyValid', { key: 'test_unknown_after_flood' }), { valid: false });
      // A 429 would have held the call until php()'s timeout; how long it took is reported, not asserted.
      t.diagnostic(`isKeyValid after the flood: ${Math.round(performance.now() - started)} ms`);
    });
  });
}
