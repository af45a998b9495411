/** Enrolling a card through the API and the hosted card page, as the vault tests need it. */
import assert from 'node:assert/strict';
import type { TestApp } from '../support/app.ts';
import { card, openPage, playChallenge, postForm } from '../pages/flow.ts';

export const RETURN_URL = 'https://shop.example/return';
/** Zero-amount enrollments: the card number's last two digits choose the test scenario (…11 challenge, …14 attempt, …12 not authenticated). */
export const FRICTIONLESS_VISA = '4000 0000 0000 0200';
export const CHALLENGE_VISA = '4111 1111 1111 1111';
export const ATTEMPT_VISA = '4000 0000 0000 0614';
export const FAILING_VISA = '4000 0000 0000 0812';

export const enrollmentBody = (overrides: Record<string, unknown> = {}) => ({ dataType: 'card', returnUrl: RETURN_URL, language: 'eng', ...overrides });

/** Enrolls a card through POST /token and the hosted card page; returns the enrollment as read afterwards. */
export async function enroll(t: TestApp, cardNumber = FRICTIONLESS_VISA, holderName = 'Jo van Tester') {
  const created = await t.client.post('/token', enrollmentBody());
  assert.equal(created.statusCode, 200, created.body);
  const { path, csrf } = await openPage(t.app, created.json().payUrl);
  const submitted = await postForm(t.app, `${path}/card`, { csrf, ...card({ cardNumber, holderName }) });
  if (cardNumber === CHALLENGE_VISA) await playChallenge(t.app, path, submitted.body, '1234');
  return (await t.client.get(`/transaction?reference=${created.json().reference}`)).json();
}
