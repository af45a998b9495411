/** Helpers for driving the hosted pages over HTTP (app.inject), as a browser without scripts would. */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Injector } from '../support/app.ts';

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
export const hiddenValue = (body: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1] ?? '';

export function postForm(app: Injector, url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url, headers: { ...FORM, ...headers }, payload: new URLSearchParams(fields).toString() });
}

export const card = (overrides: Record<string, string> = {}) => ({
  cardNumber: '4111 1111 1111 1111',
  expiry: '12/34',
  cvc: '123',
  holderName: 'Jo Tester',
  js: '0',
  ...overrides,
});

/** Opens payUrl and returns its path and CSRF token. */
export async function openPage(app: Injector, payUrl: string) {
  const path = new URL(payUrl).pathname;
  const page = await app.inject({ method: 'GET', url: path });
  assert.equal(page.statusCode, 200, page.body);
  return { path, csrf: csrfOf(page.body), page };
}

/** Plays a 3DS2 challenge over HTTP: frame → ACS page → answer → notify → completion. */
export async function playChallenge(app: Injector, path: string, challengePage: string, code: string) {
  const csrf = csrfOf(challengePage);
  const framePath = /<iframe[^>]+src="([^"]+)"/.exec(challengePage)![1];
  const frame = await app.inject({ method: 'GET', url: framePath });
  assert.equal(frame.statusCode, 200, frame.body);
  const acsUrl = new URL(/<form method="post" action="([^"]+)"/.exec(frame.body)![1]);
  const acsPage = await postForm(app, acsUrl.pathname, { creq: hiddenValue(frame.body, 'creq'), threeDSSessionData: hiddenValue(frame.body, 'threeDSSessionData') });
  assert.equal(acsPage.statusCode, 200, acsPage.body);
  assert.match(acsPage.body, /autocomplete="one-time-code"/);
  const answer = await postForm(app, '/simulator/acs/challenge/answer', {
    acsTransID: hiddenValue(acsPage.body, 'acsTransID'),
    token: hiddenValue(acsPage.body, 'token'),
    threeDSSessionData: hiddenValue(acsPage.body, 'threeDSSessionData'),
    code,
  });
  assert.equal(answer.statusCode, 200, answer.body);
  const notify = await postForm(app, `${path}/3ds/notify`, {
    cres: hiddenValue(answer.body, 'cres'),
    threeDSSessionData: hiddenValue(answer.body, 'threeDSSessionData'),
  });
  assert.equal(notify.statusCode, 200, notify.body);
  return postForm(app, `${path}/3ds/complete`, { csrf, session: hiddenValue(challengePage, 'session'), sealedCard: hiddenValue(challengePage, 'sealedCard') });
}

/** Plays a 3DS1 redirect over HTTP (the .13 scenario): Kassa's redirect page → the simulated ACS → its answer → back to TermUrl. */
export async function play3ds1(app: Injector, path: string, redirectPage: string, code: string) {
  const acs = await postForm(app, '/simulator/acs/3ds1', {
    PaReq: hiddenValue(redirectPage, 'PaReq'),
    TermUrl: hiddenValue(redirectPage, 'TermUrl'),
    MD: hiddenValue(redirectPage, 'MD'),
  });
  assert.equal(acs.statusCode, 200, acs.body);
  const answer = await postForm(app, '/simulator/acs/3ds1/answer', {
    acsTransID: hiddenValue(acs.body, 'acsTransID'),
    token: hiddenValue(acs.body, 'token'),
    TermUrl: hiddenValue(acs.body, 'TermUrl'),
    MD: hiddenValue(acs.body, 'MD'),
    code,
  });
  assert.equal(answer.statusCode, 200, answer.body);
  return postForm(app, `${path}/3ds1`, { PaRes: hiddenValue(answer.body, 'PaRes'), MD: hiddenValue(answer.body, 'MD') });
}
