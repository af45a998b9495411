/**
 * The vault in a real browser (headless Chromium): a customer saves a card through the
 * enrollment's payUrl (3-D Secure challenge pop-up), then pays with it on the confirm path
 * (masked card shown, only the CVC typed). Pages are checked with axe-core and photographed.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAccessible, chromiumMissing, payWithCard, screenshot, suiteHarness } from './browser.ts';
import { needs } from '../support/dependencies.ts';

describe('vault pages in Chromium', { skip: needs(chromiumMissing) }, () => {
  const h = suiteHarness();

  test('enrollment with a challenge saves the card; a confirm-path vault payment asks only the CVC and succeeds', async () => {
    const created = await h.api.post('/token', { dataType: 'card', returnUrl: h.returnUrl, language: 'eng' });
    assert.equal(created.statusCode, 200, created.body);
    const enrollment = created.json();
    const { context, page, cspViolations } = await h.context();
    await page.goto(enrollment.payUrl);
    await page.getByRole('heading', { name: 'Card details' }).waitFor();
    await screenshot(page, 'vault-enroll-eng');
    await assertAccessible(page, 'enrollment card page');
    // 4111 1111 1111 1111 ends in 11: the simulated issuer asks this card for a challenge (zero-amount enrollment).
    await payWithCard(page, { name: 'Jo Tester' }, /^Save card$/);
    const frame = page.frameLocator('iframe[name=challenge-window]');
    await frame.getByText('Confirm that Test Shop may save your card').waitFor();
    await frame.getByLabel('One-time code').pressSequentially('1234');
    await frame.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.waitForURL(h.returnUrl);
    const enrolled = await h.transaction(enrollment.reference);
    assert.equal(enrolled.status, 'success');
    assert.equal(enrolled.details.scaToken, true);
    assert.equal(enrolled.details.maskedPan, '411111******1111');
    await page.goto(enrollment.payUrl);
    await page.getByRole('heading', { name: 'Card saved' }).waitFor();

    const payment = await h.createPayment({ amount: '30.00', details: { vaultAccessToken: enrolled.details.vaultAccessToken } });
    await page.goto(payment.payUrl);
    await page.getByRole('heading', { name: 'Pay with your saved card' }).waitFor();
    assert.equal(await page.getByLabel('Card number').inputValue(), '411111******1111');
    assert.equal(await page.locator('#cardNumber').count(), 0, 'the card number is not asked');
    await screenshot(page, 'vault-confirm-eng');
    await assertAccessible(page, 'stored card page');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.locator('#cvc-error').waitFor({ state: 'visible' });
    await page.getByLabel('Security code (CVC)').pressSequentially('123');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(h.returnUrl);
    const paid = await h.transaction(payment.reference);
    assert.equal(paid.status, 'success');
    assert.equal(paid.brand, 'visa');
    assert.equal(JSON.parse((await h.row(payment.reference)).authentication).transStatus, 'Y');
    assert.deepEqual(cspViolations, []);
    await context.close();
  });
});
