/**
 * A stateful stand-in for Adyen's Payment API v68 on 127.0.0.1, for the connector's tests:
 * every request is validated against Adyen's own OpenAPI document
 * (`PaymentService-v68.json` of `/work/shared/acquirers/adyen`, JSON Schema 2020-12) and a request
 * that breaks it is answered 422 and recorded as a violation, so a test fails on it. Outcomes
 * are chosen by the amount's cents, like the simulator's (README "Test mode"): .21 Refused,
 * .22 Not enough balance, .23 FRAUD, .25 Refused with Mastercard's merchant advice "do not try
 * again", .26 a 422 ServiceError (`905` Payment details are not supported), .27 Cancelled,
 * .31 no answer in time; anything else Authorised.
 * Modifications are answered `[…-received]`; the test sends the notifications.
 * An `/authorise` asking Adyen to authenticate (`threeDS2RequestData`) plays Adyen's native 3DS2
 * with an issuer's ACS served here too (section "Native 3-D Secure 2" below).
 */
import Fastify from 'fastify';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { requestValidators } from './request-validators.ts';
import { setAcquirerConnection } from '../../src/acquirer/connections.ts';
import { MAX_IDEMPOTENCY_KEY } from '../../src/acquirer/adyen-http.ts';
import { checkoutApi, CHECKOUT_PREFIX, type FakeCheckout } from './adyen-checkout-fake.ts';
import type { Store } from '../../src/store/store.ts';
import type { Mode } from '../../src/store/schema.ts';

/** Adyen's material (ADYEN_CONTRACT_DIR; default: the copy kept in /work/shared/acquirers/adyen, as the PHP client's in test/support/php.ts). */
const contractDir = process.env.ADYEN_CONTRACT_DIR ?? '/work/shared/acquirers/adyen';
export const ADYEN_CONTRACT = path.join(contractDir, 'PaymentService-v68.json');

/** Connects a merchant's mode to the stand-in, merchant account `ShopNL`, as `kassa acquirer set` would. */
export const connectToFake = (
  store: Store,
  fake: FakeAdyen,
  {
    merchantId,
    mode,
    hmacKey,
    apiKey = fake.apiKey,
    checkout = false,
  }: { merchantId: string; mode: Mode; hmacKey: string; apiKey?: string /** With the Checkout API (adyen-checkout-fake.ts). */; checkout?: boolean },
) =>
  setAcquirerConnection(
    store,
    {
      merchantId,
      mode,
      connector: 'adyen',
      endpoint: fake.url,
      endpoints: checkout ? { checkout: fake.checkout.url } : {},
      account: 'ShopNL',
      secretsJson: JSON.stringify({ apiKey, hmacKey }),
    },
    Date.now(),
  );

export interface FakeAdyen {
  url: string;
  /** The Checkout API beside the Payment API (adyen-checkout-fake.ts). */
  checkout: FakeCheckout;
  apiKey: string;
  /** Every request, with what a modification was answered (its own pspReference, which its notification names). */
  requests: { path: string; body: Record<string, unknown>; idempotencyKey: string | undefined; answer?: Record<string, unknown> }[];
  violations: string[];
  /** How long an answer to a `.31` authorisation takes. */
  slowMs: number;
  /** Native 3DS2: the authentications Adyen ran, by threeDS2Token. */
  authentications: Map<string, FakeAuthentication>;
  close(): Promise<void>;
  /** What "Adyen" holds by merchant reference: each authorisation made, and whether a technical cancel undid it. */
  authorisations: Map<string, HeldAuthorisation>;
  /** Runs once an authorisation is made at "Adyen" and before it is answered (a test kills Kassa here). */
  beforeAnswer?: (body: Record<string, unknown>) => void | Promise<void>;
  /**
   * Runs once a modification (`/capture`, `/cancel`, `/refund`) is taken, or its answer found
   * for a repeated Idempotency-Key, and before it is answered: a test delays the answer past
   * ACQUIRER_TIMEOUT, or kills Kassa, here; an answer it returns is sent instead (a refusal).
   */
  beforeModification?: (route: string, body: Record<string, unknown>) => void | Record<string, unknown> | Promise<void | Record<string, unknown>>;
}

const MODIFICATIONS = ['/capture', '/cancel', '/refund', '/cancelOrRefund'];

const pspReference = () =>
  randomBytes(12)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'X')
    .slice(0, 16)
    .toUpperCase();

export async function startFakeAdyen(): Promise<FakeAdyen> {
  const validators = requestValidators(ADYEN_CONTRACT, 'adyen.json');
  // A test's close must not wait for the keep-alive connections of the connectors it used.
  const app = Fastify({ forceCloseConnections: true });
  const answers = new Map<string, unknown>();
  const fake: FakeAdyen = {
    url: '',
    checkout: { url: '', sessions: new Map() },
    apiKey: `AQE${randomBytes(16).toString('hex')}`,
    requests: [],
    violations: [],
    slowMs: 0,
    authentications: new Map(),
    close: () => app.close(),
    authorisations: new Map(),
  };
  const threeDS2 = await nativeThreeDS2(app, fake);
  let base = '';
  fake.checkout = await checkoutApi(app, fake, () => base);
  /**
   * The references of customer-present card-on-file authorisations (Kassa keeps the card, Adyen
   * does not tokenise it): Adyen answers such an authorisation with the scheme's transaction
   * reference, `additionalData.networkTxReference`, by /authorise or after native 3DS2 by /authorise3ds2.
   */
  const cardOnFile = new Set<string>();
  const withNetworkTxReference = (answer: Record<string, unknown>, reference: string) =>
    answer.resultCode === 'Authorised' && cardOnFile.has(reference)
      ? { ...answer, additionalData: { ...(answer.additionalData as object | undefined), networkTxReference: `${randomBytes(7).readUIntBE(0, 6)}` } }
      : answer;
  app.post<{ Params: { route: string }; Body: Record<string, unknown> }>('/pal/servlet/Payment/v68/:route', async (request, reply) => {
    const route = `/${request.params.route}`;
    const body = request.body;
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    const received: FakeAdyen['requests'][number] = { path: route, body, idempotencyKey };
    fake.requests.push(received);
    if (request.headers['x-api-key'] !== fake.apiKey)
      return reply.code(401).send({ status: 401, errorCode: '000', message: 'HTTP Status Response - Unauthorized', errorType: 'security' });
    if (idempotencyKey !== undefined && idempotencyKey.length > MAX_IDEMPOTENCY_KEY)
      fake.violations.push(`${route}: an Idempotency-Key of ${idempotencyKey.length} characters`);
    const validate = validators[route];
    if (!validate) return reply.code(404).send({ status: 404, errorCode: '000', message: 'Not found', errorType: 'validation' });
    if (!validate(body)) {
      fake.violations.push(`${route}: ${JSON.stringify(validate.errors)}`);
      return reply.code(422).send({ status: 422, errorCode: '702', message: 'Structure of the request is invalid', errorType: 'validation' });
    }
    const key = `${route}:${idempotencyKey}`;
    const modified = async (answer: unknown) => {
      const instead = MODIFICATIONS.includes(route) ? await fake.beforeModification?.(route, body) : undefined;
      received.answer = (instead ?? answer) as Record<string, unknown>;
      return instead ?? answer;
    };
    const replayed = idempotencyKey ? answers.get(key) : undefined;
    if (replayed && typeof (replayed as { status?: unknown }).status === 'number') return reply.code((replayed as { status: number }).status).send(replayed);
    if (replayed) return modified(replayed);
    if (route === '/authorise' && body.recurringProcessingModel === 'CardOnFile') cardOnFile.add(String(body.reference));
    // A refusal that comes before any authentication (.25, .26, .27) is answered alike with or without native 3DS2.
    const refusedAtOnce = route === '/authorise' && [25, 26, 27].includes((body.amount as { value: number }).value % 100);
    const answered =
      threeDS2.asked(route, body) && !refusedAtOnce
        ? await threeDS2.answer(route, body)
        : route === '/authorise'
          ? await authorise(body)
          : { pspReference: pspReference(), response: `[${route.slice(1).replace('technicalCancel', 'technical-cancel')}-received]` };
    const answer = withNetworkTxReference(answered as Record<string, unknown>, String(body.reference));
    // An authorisation made, by /authorise or at the end of native 3DS2 by /authorise3ds2.
    if ((answer as { resultCode?: string }).resultCode === 'Authorised') await made(fake, body, (answer as { pspReference: string }).pspReference);
    if (idempotencyKey) answers.set(key, answer);
    if (route === '/technicalCancel') technicalCancel(fake, body);
    const { status } = answer as { status?: unknown };
    if (typeof status === 'number') return reply.code(status).send(answer);
    return modified(answer);
  });
  async function authorise(body: Record<string, unknown>) {
    const cents = (body.amount as { value: number }).value % 100;
    if (cents === 31) await new Promise((resolve) => setTimeout(resolve, fake.slowMs));
    if (cents === 25) {
      const additionalData = { merchantAdviceCode: '03: Do not try again', refusalReasonRaw: '05 : Do not honor' };
      return { pspReference: pspReference(), resultCode: 'Refused', refusalReason: 'Refused', refusalReasonCode: '2', additionalData };
    }
    if (cents === 26) return { status: 422, errorCode: '905', message: 'Payment details are not supported', errorType: 'configuration', pspReference: pspReference() };
    if (cents === 27) return { pspReference: pspReference(), resultCode: 'Cancelled' };
    const refusal = { 21: 'Refused', 22: 'Not enough balance', 23: 'FRAUD' }[cents];
    if (refusal) return { pspReference: pspReference(), resultCode: 'Refused', refusalReason: refusal };
    return { pspReference: pspReference(), resultCode: 'Authorised', authCode: '123456' };
  }
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  fake.url = `${address}/pal/servlet/Payment/v68`;
  base = address;
  fake.checkout.url = `${address}${CHECKOUT_PREFIX}`;
  threeDS2.acsBase = `${address}/acs`;
  return fake;
}

// ── Native 3-D Secure 2 ───────────────────────────────────────────────────────────────
//
// Adyen's classic native 3DS2: an `/authorise` with `threeDS2RequestData` is authenticated by
// Adyen, the outcome chosen by the amount's cents like the simulator's: .11 ChallengeShopper,
// .15 IdentifyShopper then Authorised, .16 IdentifyShopper then ChallengeShopper, .17
// IdentifyShopper without a 3DS method URL, .12 Refused (3D Not Authenticated), .21/.22/.23
// Refused as above, .31 no answer in time, anything else Authorised frictionless.
// The issuer's ACS is served here on 127.0.0.1: its 3DS method page posts the method data back
// to the 3DS method notification URL, and its challenge page (Approve / Reject) posts the CRes to
// the notification URL of the `/authorise`. `/authorise3ds2` then answers from what the ACS
// recorded (as Adyen from its RReq); a threeDSCompInd Y without the method having run, or a
// transStatus other than the CRes's, is a violation.

export interface FakeAuthentication {
  reference: string;
  cents: number;
  notificationUrl: string;
  threeDSServerTransID: string;
  acsTransID: string;
  methodRan: boolean;
  /** What the cardholder did on the challenge page: Y approved, N rejected. */
  challengeResult?: 'Y' | 'N';
}

const encoded = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decoded = (value: unknown) => {
  try {
    return JSON.parse(Buffer.from(String(value ?? ''), 'base64url').toString('utf8')) as Record<string, string>;
  } catch {
    return {};
  }
};
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** A page of the issuer: a form, sent by itself when `auto`. */
const acsPage = (title: string, action: string, fields: Record<string, string>, buttons: string[] = []) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>
<form method="post" action="${escape(action)}">${Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('')}${buttons.map((label) => `<button type="submit" name="answer" value="${escape(label)}">${escape(label)}</button>`).join('')}</form>
${buttons.length === 0 ? '<script>document.forms[0].submit()</script>' : ''}</main></body></html>`;

async function nativeThreeDS2(app: FastifyInstance, fake: FakeAdyen) {
  await app.register(formbody);
  /** 3-D Secure 1 redirects by Adyen's md, and what the cardholder answered at the issuer. */
  const redirects = new Map<string, { reference: string; answer?: 'Approve' | 'Reject' }>();
  const byTransaction = (id: unknown) => [...fake.authentications.entries()].find(([, a]) => a.threeDSServerTransID === id);
  const payment = (result: Record<string, unknown>) => ({ pspReference: pspReference(), ...result });
  const refusedOrAuthorised = (cents: number) => {
    const refusal = { 12: '3D Not Authenticated', 21: 'Refused', 22: 'Not enough balance', 23: 'FRAUD' }[cents];
    return refusal ? payment({ resultCode: 'Refused', refusalReason: refusal }) : payment({ resultCode: 'Authorised', authCode: '123456' });
  };
  const threeDS2 = {
    acsBase: '',
    asked: (route: string, body: Record<string, unknown>) =>
      route === '/authorise3ds2' || route === '/authorise3d' || (route === '/authorise' && body.threeDS2RequestData !== undefined),
    async answer(route: string, body: Record<string, unknown>) {
      if (route === '/authorise3d') {
        const redirect = redirects.get(String(body.md));
        if (!redirect) return payment({ resultCode: 'Error', refusalReason: 'Unknown md' });
        const pares = decoded(body.paResponse);
        if (pares.md !== body.md || pares.answer !== redirect.answer) fake.violations.push('/authorise3d: the paResponse is not the one the issuer gave');
        redirects.delete(String(body.md));
        return redirect.answer === 'Approve' ? refusedOrAuthorised(0) : refusedOrAuthorised(12);
      }
      if (route === '/authorise') {
        const cents = (body.amount as { value: number }).value % 100;
        if (cents === 31) await new Promise((resolve) => setTimeout(resolve, fake.slowMs));
        const request = body.threeDS2RequestData as { deviceChannel: string; notificationURL?: string };
        if (request.deviceChannel !== 'browser' || !request.notificationURL)
          fake.violations.push('/authorise: the browser flow needs deviceChannel browser and a notificationURL');
        if (cents === 18) {
          // An issuer with 3-D Secure 1 only: RedirectShopper to its ACS (PaymentResult v68 issuerUrl, md, paRequest).
          const md = `MD${randomBytes(12).toString('hex')}`;
          redirects.set(md, { reference: String(body.reference) });
          return payment({ resultCode: 'RedirectShopper', issuerUrl: `${threeDS2.acsBase}/3ds1`, md, paRequest: encoded({ md, reference: body.reference }) });
        }
        if (![11, 15, 16, 17].includes(cents)) return refusedOrAuthorised(cents);
        const token = `TOKEN${randomBytes(12).toString('hex')}`;
        const authentication: FakeAuthentication = {
          reference: String(body.reference),
          cents,
          notificationUrl: request.notificationURL ?? '',
          threeDSServerTransID: crypto.randomUUID(),
          acsTransID: crypto.randomUUID(),
          methodRan: false,
        };
        fake.authentications.set(token, authentication);
        return cents === 11 ? challenge(token, authentication) : identify(token, authentication);
      }
      const token = String(body.threeDS2Token ?? '');
      const authentication = fake.authentications.get(token);
      if (!authentication || authentication.reference !== body.reference) return payment({ resultCode: 'Error', refusalReason: 'Unknown threeDS2Token' });
      const compInd = (body.threeDS2RequestData as { threeDSCompInd?: string } | undefined)?.threeDSCompInd;
      if (compInd !== undefined) {
        if (compInd === 'Y' && !authentication.methodRan) fake.violations.push('/authorise3ds2: threeDSCompInd Y, but the 3DS method did not run');
        if ((compInd === 'U') !== (authentication.cents === 17))
          fake.violations.push(`/authorise3ds2: threeDSCompInd ${compInd} for an issuer ${authentication.cents === 17 ? 'without' : 'with'} a 3DS method`);
        return authentication.cents === 16 ? challenge(token, authentication) : refusedOrAuthorised(authentication.cents);
      }
      const transStatus = (body.threeDS2Result as { transStatus?: string } | undefined)?.transStatus;
      if (transStatus !== (authentication.challengeResult ?? 'U'))
        fake.violations.push(`/authorise3ds2: transStatus ${transStatus}, the CRes said ${authentication.challengeResult}`);
      return authentication.challengeResult === 'Y' ? refusedOrAuthorised(0) : refusedOrAuthorised(12);
    },
  };
  function identify(token: string, authentication: FakeAuthentication) {
    return payment({
      resultCode: 'IdentifyShopper',
      additionalData: {
        'threeds2.threeDS2Token': token,
        'threeds2.threeDSServerTransID': authentication.threeDSServerTransID,
        ...(authentication.cents === 17 ? {} : { 'threeds2.threeDSMethodURL': `${threeDS2.acsBase}/method` }),
      },
    });
  }
  function challenge(token: string, authentication: FakeAuthentication) {
    return payment({
      resultCode: 'ChallengeShopper',
      additionalData: {
        'threeds2.threeDS2Token': token,
        'threeds2.threeDS2ResponseData.threeDSServerTransID': authentication.threeDSServerTransID,
        'threeds2.threeDS2ResponseData.acsTransID': authentication.acsTransID,
        'threeds2.threeDS2ResponseData.acsURL': `${threeDS2.acsBase}/challenge`,
        'threeds2.threeDS2ResponseData.messageVersion': '2.2.0',
        'threeds2.threeDS2ResponseData.transStatus': 'C',
      },
    });
  }
  // The issuer's 3-D Secure 1 page: the PaReq and Adyen's MD posted by Kassa's page, the PaRes posted back to the TermUrl.
  app.post<{ Body: Record<string, string> }>('/acs/3ds1', async (request, reply) => {
    const { PaReq: paReq, MD: md, TermUrl: termUrl } = request.body;
    const redirect = redirects.get(md ?? '');
    if (!redirect || decoded(paReq).md !== md || !termUrl) return reply.code(400).type('text/html').send('<p>unknown PaReq or MD</p>');
    const fields = { MD: md!, TermUrl: termUrl };
    return reply.type('text/html').send(acsPage('Fake issuer: confirm the payment (3-D Secure 1)', `${threeDS2.acsBase}/3ds1/answer`, fields, ['Approve', 'Reject']));
  });
  app.post<{ Body: Record<string, string> }>('/acs/3ds1/answer', async (request, reply) => {
    const { MD: md, TermUrl: termUrl, answer } = request.body;
    const redirect = redirects.get(md ?? '');
    if (!redirect || !termUrl) return reply.code(400).type('text/html').send('<p>unknown MD</p>');
    redirect.answer = answer === 'Approve' ? 'Approve' : 'Reject';
    return reply.type('text/html').send(acsPage('Returning to the shop', termUrl, { PaRes: encoded({ md, answer: redirect.answer }), MD: md! }));
  });
  // The issuer's 3DS method: reads the browser (here: notes that it ran), then posts the method data back.
  app.post<{ Body: Record<string, string> }>('/acs/method', async (request, reply) => {
    const data = decoded(request.body.threeDSMethodData);
    const found = byTransaction(data.threeDSServerTransID);
    if (!found || !data.threeDSMethodNotificationURL) return reply.code(400).type('text/html').send('<p>unknown transaction</p>');
    found[1].methodRan = true;
    return reply.type('text/html').send(acsPage('Device check', data.threeDSMethodNotificationURL, { threeDSMethodData: request.body.threeDSMethodData! }));
  });
  app.post<{ Body: Record<string, string> }>('/acs/challenge', async (request, reply) => {
    const creq = decoded(request.body.creq);
    const found = byTransaction(creq.threeDSServerTransID);
    if (!found || creq.acsTransID !== found[1].acsTransID || creq.messageType !== 'CReq') return reply.code(400).type('text/html').send('<p>unknown transaction</p>');
    const fields = { creq: request.body.creq!, threeDSSessionData: request.body.threeDSSessionData ?? '' };
    return reply.type('text/html').send(acsPage('Fake issuer: confirm the payment', `${threeDS2.acsBase}/challenge/answer`, fields, ['Approve', 'Reject']));
  });
  app.post<{ Body: Record<string, string> }>('/acs/challenge/answer', async (request, reply) => {
    const creq = decoded(request.body.creq);
    const found = byTransaction(creq.threeDSServerTransID);
    if (!found) return reply.code(400).type('text/html').send('<p>unknown transaction</p>');
    const [, authentication] = found;
    authentication.challengeResult = request.body.answer === 'Approve' ? 'Y' : 'N';
    const cres = encoded({
      threeDSServerTransID: authentication.threeDSServerTransID,
      acsTransID: authentication.acsTransID,
      messageType: 'CRes',
      messageVersion: creq.messageVersion ?? '2.2.0',
      transStatus: authentication.challengeResult,
      challengeCompletionInd: 'Y',
    });
    return reply
      .type('text/html')
      .send(acsPage('Returning to the shop', authentication.notificationUrl, { cres, threeDSSessionData: request.body.threeDSSessionData ?? '' }));
  });
  return threeDS2;
}

// ---- Unknown outcomes: what "Adyen" holds, and a technical cancel of it ----

export interface HeldAuthorisation {
  pspReference: string;
  amount: { value: number; currency: string };
  state: 'authorised' | 'cancelled';
}

/** An authorisation made: held under its merchant reference, then `beforeAnswer` (where a test may kill Kassa). */
async function made(fake: FakeAdyen, body: Record<string, unknown>, psp: string) {
  fake.authorisations.set(body.reference as string, { pspReference: psp, amount: body.amount as HeldAuthorisation['amount'], state: 'authorised' });
  await fake.beforeAnswer?.(body);
}

/** `/technicalCancel` undoes the authorisation its `originalMerchantReference` names, if one was made. */
function technicalCancel(fake: FakeAdyen, body: Record<string, unknown>) {
  const held = fake.authorisations.get(body.originalMerchantReference as string);
  if (held) held.state = 'cancelled';
}
