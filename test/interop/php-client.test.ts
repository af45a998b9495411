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
import { card, csrfOf, openPage, play3ds1, postForm } from '../pages/flow.ts';
import { phpClientAutoload, phpMissing } from '../support/php.ts';
import { needs } from '../support/dependencies.ts';
import { paymentMethods } from '../../src/ground/payment-method.ts';
import { cardBrands } from '../../src/ground/card-brand.ts';

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
  body?: { status: number; errors?: { field: string; code: string; message: string }[] };
}

/** The shop plugins whose requests ccv-client.php builds as they do (docs/interop.md "Methods through the shop plugins"). */
const shapes = ['woocommerce', 'magento', 'prestashop'] as const;
type Shape = (typeof shapes)[number];
/** Each plugin's order total (ccv-client.php), the amount it captures and refunds. */
const orderTotal: Record<Shape, number> = { woocommerce: 97.05, magento: 95.84, prestashop: 100.84 };
/** The shop's locale each method runs with, so every language a plugin sends is seen. */
const localeOf: Record<string, string> = { ideal: 'nl_NL', paypal: 'en_GB', klarna: 'de_DE', banktransfer: 'fr_FR', card_bcmc: 'fr_BE' };
const languageOf: Record<string, string> = { nl_NL: 'nld', en_GB: 'eng', de_DE: 'deu', fr_FR: 'fra', fr_BE: 'fra' };
/** The methods the plugins offer that Kassa lists, paid elsewhere: through the simulator page. */
const methodsPaidElsewhere = ['ideal', 'paypal', 'klarna', 'banktransfer'] as const;

for (const backend of backends) {
  describe(`the official PHP client against Kassa on ${backend}`, { skip }, () => {
    let db: TestDatabase;
    let kassa: KassaProcess;
    let merchant: ReturnType<typeof api>;
    let env: Record<string, string>;

    before(async () => {
      db = await createTestDatabase(backend);
      const { testApiKey, merchantId } = JSON.parse(kassaCli(db.env, 'merchant', 'create', '--name', 'Interop Shop', '--json'));
      kassaCli(db.env, 'merchant', 'methods', '--merchant', merchantId, '--enable', paymentMethods.join(','));
      kassa = await startKassaProcess({ ...db.env, RATE_LIMIT_PER_SECOND: '0' });
      merchant = api(httpInjector(kassa.baseUrl), testApiKey);
      env = { ...(process.env as Record<string, string>), KASSA_API_ROOT: `${kassa.baseUrl}/`, KASSA_API_KEY: testApiKey, CCV_PHP_CLIENT: phpClientAutoload };
    });
    /** Requests of the library per plugin and method: accepted (2xx) or refused (an ApiException). */
    const counts: Record<string, { accepted: number; refused: number }> = {};
    function counted(shape: string, method: string, answer: ClientAnswer): ClientAnswer {
      const entry = (counts[`${shape} ${method}`] ??= { accepted: 0, refused: 0 });
      if (answer.exception) entry.refused++;
      else entry.accepted++;
      return answer;
    }

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

    test('getMethods after enabling every method: each method, one card_<brand> per brand, what the library reads of each, sorted as the plugins sort', async () => {
      const answer = (await php('describeMethods')) as unknown as {
        methods: { id: string; sale: boolean; authorise: boolean; orderLinesRequired: boolean; refund: boolean }[];
        sortedNL: string[];
        sortedBE: string[];
      };
      const ids = answer.methods.map((m) => m.id);
      assert.deepEqual([...ids].sort(), ['ideal', 'paypal', 'klarna', 'banktransfer', 'landingpage', 'walletpay', ...cardBrands.map((brand) => `card_${brand}`)].sort());
      const klarna = answer.methods.find((m) => m.id === 'klarna')!;
      assert.deepEqual(klarna, { id: 'klarna', sale: false, authorise: true, orderLinesRequired: true, refund: true });
      for (const m of answer.methods.filter((m) => m.id !== 'klarna')) assert.deepEqual([m.id, m.orderLinesRequired, m.authorise], [m.id, false, false]);
      assert.equal(answer.sortedNL[0], 'ideal');
      assert.equal(answer.sortedBE[0], 'card_bcmc');
      assert.equal(answer.sortedBE[1], 'ideal');
    });

    for (const shape of shapes) {
      describe(`a ${shape} order, built as the plugin builds it`, () => {
        const total = orderTotal[shape];

        /** The customer on payUrl: sent to the method's simulated step, picks `outcome`, comes back through Kassa to the shop. */
        async function payOnSimulator(payUrl: string, outcome: string, bank?: string): Promise<void> {
          const http = httpInjector(kassa.baseUrl);
          const path = new URL(payUrl).pathname;
          const sent = await http.inject({ method: 'GET', url: path });
          assert.equal(sent.statusCode, 303, sent.body);
          assert.equal(new URL(sent.headers.location as string, kassa.baseUrl).pathname, `${path}/simulator`);
          const page = await http.inject({ method: 'GET', url: `${path}/simulator` });
          assert.equal(page.statusCode, 200, page.body);
          const back = await postForm(http, `${path}/simulator`, { csrf: csrfOf(page.body), outcome, ...(bank ? { bank } : {}) });
          assert.equal(back.statusCode, 303, back.body);
          assert.equal(back.headers.location, `${path}/return`);
          const toShop = await http.inject({ method: 'GET', url: `${path}/return` });
          assert.equal(toShop.statusCode, 303, toShop.body);
          assert.match(toShop.headers.location as string, /^https:\/\/shop\.example\//);
        }

        for (const method of [...methodsPaidElsewhere, 'card_bcmc'] as const) {
          describe(method, () => {
            let created: ClientAnswer;
            let settled: string;
            const locale = localeOf[method]!;

            test('createPayment: pending, with a payUrl', async () => {
              created = counted(shape, method, await php('createPayment', { shape, method, locale }));
              assert.equal(created.exception, undefined, JSON.stringify(created.body));
              const read = (await merchant.get(`/transaction?reference=${created.reference}`)).json();
              assert.equal(read.status, 'pending');
              assert.match(created.payUrl ?? '', /\/pay\//);
              assert.equal(read.amount, total);
              assert.equal(read.language, languageOf[locale]);
              assert.equal(read.type, method === 'klarna' ? 'authorise' : 'sale');
              assert.equal(read.method, method === 'card_bcmc' ? 'card' : method);
            });

            test(method === 'card_bcmc' ? 'paid on the card page with a Bancontact card, no security code' : 'paid on the simulator page', async () => {
              if (method === 'card_bcmc') {
                const http = httpInjector(kassa.baseUrl);
                const { path: page, csrf } = await openPage(http, created.payUrl!);
                const step = await postForm(http, `${page}/card`, { csrf, ...card({ cardNumber: '6703 4444 4444 4449', cvc: '' }) });
                // A bcmc card has no 3DS2 directory: at a merchant subject to 3-D Secure it falls back to 3DS1 (docs/pages.md).
                const paid = step.statusCode === 200 ? await play3ds1(http, page, step.body, '1234') : step;
                assert.ok([200, 303].includes(paid.statusCode), paid.body);
                const read = (await merchant.get(`/transaction?reference=${created.reference}`)).json();
                assert.deepEqual([read.method, read.brand], ['card', 'bcmc']);
              } else {
                await payOnSimulator(created.payUrl!, 'paid', method === 'ideal' ? 'INGBNL2A' : undefined);
              }
            });

            test('getPaymentStatus: success', async () => {
              const status = await php('getPaymentStatus', { reference: created.reference });
              assert.deepEqual([status.status, status.type, status.amount, status.failureCode], ['success', method === 'klarna' ? 'authorise' : 'sale', total, null]);
              if (method === 'ideal' || method === 'banktransfer') assert.match(String(status.details?.consumerIban), /\*\*\*\*/);
              settled = created.reference!;
            });

            if (method === 'klarna') {
              test(`createCapture of the whole order${shape === 'prestashop' ? ' (PrestaShop sends no lines)' : ', with the lines shipped'}`, async () => {
                const capture = counted(shape, method, await php('createCapture', { shape, reference: created.reference, amount: total }));
                assert.equal(capture.exception, undefined, JSON.stringify(capture.body));
                const status = await php('getPaymentStatus', { reference: capture.reference });
                assert.deepEqual([status.status, status.type, status.amount], ['success', 'sale', total]);
                const auth = await php('getPaymentStatus', { reference: created.reference });
                assert.equal(auth.details?.captureStatus, 'captured');
                settled = capture.reference!; // the plugins refund the capture
              });
            }

            test('createRefund of the whole order', async () => {
              const refund = counted(shape, method, await php('createRefund', { reference: settled, amount: total, description: `Retour order (${shape})` }));
              assert.equal(refund.exception, undefined, JSON.stringify(refund.body));
              const status = await php('getPaymentStatus', { reference: refund.reference });
              assert.deepEqual([status.type, status.amount, status.status], ['credit', total, 'success']);
            });
          });
        }

        for (const [outcome, failureCode] of [
          ['failed', 'rejected'],
          ['cancelled', 'cancelled'],
        ] as const) {
          test(`iDEAL ${outcome} on the simulator page: getPaymentStatus failed, ${failureCode}; nothing to refund`, async () => {
            const created = counted(shape, 'ideal', await php('createPayment', { shape, method: 'ideal', locale: 'nl_NL' }));
            assert.equal(created.exception, undefined, JSON.stringify(created.body));
            await payOnSimulator(created.payUrl!, outcome, 'RABONL2U');
            const status = await php('getPaymentStatus', { reference: created.reference });
            assert.deepEqual([status.status, status.failureCode], ['failed', failureCode]);
            const refund = counted(shape, 'ideal', await php('createRefund', { reference: created.reference, amount: total }));
            assert.equal(refund.body?.status, 422, JSON.stringify(refund));
          });
        }

        test('iDEAL with a bank picked from a list (as older plugin versions offered) keeps the BIC', async () => {
          const created = counted(shape, 'ideal', await php('createPayment', { shape, method: 'ideal', locale: 'nl_NL', issuer: 'rabonl2u' }));
          assert.equal(created.exception, undefined, JSON.stringify(created.body));
          const read = (await merchant.get(`/transaction?reference=${created.reference}`)).json();
          assert.equal(read.status, 'pending');
        });

        for (const method of ['sofort', 'giropay']) {
          test(`${method}: createPayment throws an ApiException naming /method`, async () => {
            const refused = counted(shape, method, await php('createPayment', { shape, method, locale: 'de_DE' }));
            assert.equal(refused.exception, 'CCVOnlinePayments\\Lib\\Exception\\ApiException');
            assert.equal(refused.body?.status, 422);
            assert.deepEqual(
              refused.body?.errors?.map((e) => `${e.field} ${e.code}`),
              ['/method retired'],
            );
          });
        }
      });
    }

    test('Magento pay-by-link (landingpage with allowCustomerCancel false and expirationDuration P14D)', async () => {
      const created = counted('magento', 'paybylink', await php('createPayment', { shape: 'magento', method: 'paybylink' }));
      assert.equal(created.exception, undefined, JSON.stringify(created.body));
      const read = (await merchant.get(`/transaction?reference=${created.reference}`)).json();
      assert.deepEqual([read.method, read.status], ['landingpage', 'pending']);
    });

    test('a PrestaShop cart with a voucher: its DISCOUNT line, sent positive, takes the voucher off, so Klarna is accepted', async () => {
      const created = counted('prestashop', 'klarna', await php('createPayment', { shape: 'prestashop', method: 'klarna', locale: 'fr_FR', discount: true }));
      assert.equal(created.exception, undefined, JSON.stringify(created.body));
      const read = (await merchant.get(`/transaction?reference=${created.reference}`)).json();
      assert.deepEqual([read.method, read.type, read.status, read.amount], ['klarna', 'authorise', 'pending', 95.84]);
    });

    test('requests per plugin and method, accepted and refused', (t) => {
      t.diagnostic(JSON.stringify(counts));
      assert.ok(Object.keys(counts).length > 0);
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
