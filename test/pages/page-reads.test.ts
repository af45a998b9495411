/**
 * A payment page GET reads and writes nothing (docs/pages.md): a customer refreshing a page costs
 * no commit, on SQLite and PostgreSQL — the card form, the landing page, a method chosen on it,
 * the simulator page of a method paid elsewhere, a vault enrollment's form, the 3-D Secure
 * challenge frame and the outcome. The page row (its CSRF token) is made by the first POST, whose
 * token check still holds the token the GET put in the form. A payment made before the first
 * POST had ever happened (no page row) renders all the same.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, cardPayment, suiteApp } from '../support/app.ts';
import { findPaymentPage } from '../../src/store/payment-pages.ts';
import { card, csrfOf, openPage, postForm } from './flow.ts';

const RETURN_URL = 'https://shop.example/return?order=9';
const REFRESHES = 3;

for (const backend of backends) {
  describe(`page GETs read only (${backend})`, () => {
    const t = suiteApp(backend);

    /** The units of work committed by the store while `act` runs (every write goes through one), and on SQLite the commit mark too. */
    async function commitsDuring(act: () => Promise<void>): Promise<number> {
      const { store } = t;
      const transact = store.transact;
      let units = 0;
      store.transact = (unit) => {
        units++;
        return transact(unit);
      };
      const markBefore = store.commitMark?.();
      try {
        await act();
      } finally {
        store.transact = transact;
      }
      const markAfter = store.commitMark?.();
      return units + (markBefore !== undefined && markAfter !== undefined && markAfter !== markBefore ? 1 : 0);
    }

    /** GETs `url` several times; each answers `status`; the pages' CSRF token stays the same. */
    async function refreshes(url: string, status = 200): Promise<{ body: string; commits: number }> {
      let body = '';
      const tokens = new Set<string>();
      const commits = await commitsDuring(async () => {
        for (let i = 0; i < REFRESHES; i++) {
          const page = await t.app.inject({ method: 'GET', url });
          assert.equal(page.statusCode, status, page.body);
          body = page.body;
          tokens.add(csrfOf(page.body));
        }
      });
      assert.equal(tokens.size, 1, 'every refresh carries the same form token');
      return { body, commits };
    }

    const create = async (body: Record<string, unknown>, path = '/payment') => {
      const response = await t.client.post(path, body);
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as { reference: string; payUrl: string };
    };

    test('the card form, then its 3-D Secure challenge frame and the outcome: no commit on any refresh; the form token of the first GET passes the first POST', async () => {
      const payment = await create(cardPayment({ amount: '12.11', returnUrl: RETURN_URL }));
      const path = new URL(payment.payUrl).pathname;
      const form = await refreshes(path);
      assert.equal(form.commits, 0, 'the card form');
      assert.match(form.body, /autocomplete="cc-number"/);
      assert.equal(await findPaymentPage(t.store.read, payment.reference), undefined, 'no page row before the first POST');

      const challenge = await postForm(t.app, `${path}/card`, { csrf: csrfOf(form.body), ...card() });
      assert.equal(challenge.statusCode, 200, challenge.body);
      assert.equal((await findPaymentPage(t.store.read, payment.reference))?.csrf_token, csrfOf(form.body), 'the first POST keeps the token the GET showed');
      const framePath = /<iframe[^>]+src="([^"]+)"/.exec(challenge.body)![1];
      assert.equal((await refreshes(framePath)).commits, 0, 'the challenge frame');

      const cancelled = await postForm(t.app, `${path}/cancel`, { csrf: csrfOf(form.body) });
      assert.equal(cancelled.statusCode, 303);
      const outcome = await refreshes(path);
      assert.equal(outcome.commits, 0, 'the outcome page');
    });

    test('a forged form post to a payment without a page row is refused and makes none', async () => {
      const payment = await create(cardPayment());
      const path = new URL(payment.payUrl).pathname;
      await openPage(t.app, payment.payUrl);
      const forged = await postForm(t.app, `${path}/card`, { csrf: 'x'.repeat(32), ...card() });
      assert.equal(forged.statusCode, 403);
      assert.equal(await findPaymentPage(t.store.read, payment.reference), undefined);
    });

    test('a vault enrollment form: no commit on any refresh', async () => {
      const enrollment = await create({ dataType: 'card', returnUrl: RETURN_URL }, '/token');
      const page = await refreshes(new URL(enrollment.payUrl).pathname);
      assert.equal(page.commits, 0);
      assert.match(page.body, /autocomplete="cc-number"/);
    });

    test('a landing page, the card form chosen on it, and the simulator page of a method paid elsewhere: no commit on any refresh', async () => {
      const landing = await create({ amount: '29.95', currency: 'EUR', method: 'landingpage', returnUrl: RETURN_URL });
      const path = new URL(landing.payUrl).pathname;
      const choice = await refreshes(path);
      assert.equal(choice.commits, 0, 'the landing page');
      const chosen = await postForm(t.app, `${path}/method`, { csrf: csrfOf(choice.body), method: 'card' });
      assert.equal(chosen.statusCode, 303, chosen.body);
      const cardForm = await refreshes(path);
      assert.equal(cardForm.commits, 0, 'the card form chosen on the landing page');
      assert.match(cardForm.body, /autocomplete="cc-number"/);

      const ideal = await create({ amount: '29.95', currency: 'EUR', method: 'ideal', returnUrl: RETURN_URL });
      const idealPath = new URL(ideal.payUrl).pathname;
      // The first GET sends the customer to the method's step: that is the payment's authorisation, a write of the operation's.
      const sent = await t.app.inject({ method: 'GET', url: idealPath });
      assert.equal(sent.statusCode, 303, sent.body);
      assert.equal((await refreshes(`${idealPath}/simulator`)).commits, 0, 'the simulator page');
    });
  });
}
