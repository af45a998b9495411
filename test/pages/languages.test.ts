/**
 * Every page kind a shopper sees in a payment, walked in each page language over HTTP (as a
 * browser without scripts whose own language is another one), read as its text: the words, the
 * title, and what assistive technology and the scripts show (aria-label, title, placeholder,
 * data-*-label). A page of another language than English fails on an English word or an English
 * message of the catalogue, beyond an explicit list of names; every page is in its language
 * (`<html lang>`), and every message of the catalogue is seen on some page, so the walk covers
 * every page kind (docs/pages.md "Languages"). Variants a route only passes through (each card
 * error, each failure, the acquirer's 3DS method) are rendered by their view functions.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { backends, suiteApp } from '../support/app.ts';
import { pageLanguages, translations, translator, type MessageKey, type PageLanguage } from '../../src/pages/i18n.ts';
import { cardPage, methodFramePage, methodPage, outcomePage, postRedirectPage, storedCardPage, type PaymentView } from '../../src/pages/views.ts';
import { failureCodes, statuses } from '../../src/ground/states.ts';
import { amountText } from '../../src/ground/amount.ts';
import { simulatedBanks } from '../../src/acquirer/simulated-methods.ts';
import { brandName, cardBrands } from '../../src/ground/card-brand.ts';
import type { CardError, CardField } from '../../src/payments/requests/card-input.ts';
import { ACS_SIMULATOR_PATH } from '../../src/threeds/ds-simulator.ts';
import { card, csrfOf, hiddenValue } from './flow.ts';

const MERCHANT = 'Test Shop';

/** Names, no English however they read: the simulated issuer, Kassa, the shop, the brands and methods, the iDEAL page's banks, the test data, the API's address. */
const names = [
  'Demo Bank',
  'Kassa',
  MERCHANT,
  ...cardBrands.map(brandName),
  'American Express',
  'iDEAL',
  'PayPal',
  'Klarna',
  'Luhn',
  ...simulatedBanks.map((bank) => bank.name),
  'tester@example.com',
  // The API's address on the test return page: a query, not prose.
  '/transaction?reference=',
];

/** Words of English that no page in another language may hold (none is a word of Dutch, German or French: not name, shop, link, will, been, order, details, front). */
const englishWords = new Set(
  (
    'the your you please with payment pay paid card cards continue cancel cancelled back confirm enter number this that and for not are ' +
    'from here has have successful failed expired choose select save saved security digits progress check checking wait while ' +
    'money moved works amount outcome invoice item quantity transfer reference beneficiary days account sent phone unknown answered ' +
    'already found return went wrong try again available being reviewed'
  ).split(' '),
);

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const decode = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (/^#x/i.test(name)) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/** What a page shows and says: its text (no script, style or drawing) and the attributes read out, or shown by its scripts. */
function pageText(body: string): string {
  const attributes = [...body.matchAll(/\s(?:title|aria-label|placeholder|alt|data-[a-z-]*(?:label|invalid))="([^"]*)"/g)].map((m) => m[1]);
  const text = body.replace(/<(script|style|svg)\b[\s\S]*?<\/\1>/g, ' ').replace(/<[^>]+>/g, ' ');
  return squash(decode([text, ...attributes].join(' ')));
}

/** A fragment as whole words: where it starts or ends with a letter or digit, none goes on beside it. */
function wordsPattern(fragment: string): RegExp {
  const body = fragment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+');
  const before = /^[\p{L}\p{N}]/u.test(fragment) ? '(?<![\\p{L}\\p{N}])' : '';
  const after = /[\p{L}\p{N}]$/u.test(fragment) ? '(?![\\p{L}\\p{N}])' : '';
  return new RegExp(`${before}${body}${after}`, 'u');
}

/** A message's fixed parts (around its placeholders) that hold a letter. */
const fragmentsOf = (message: string) =>
  message
    .split(/\{\w+\}/)
    .map(squash)
    .filter((fragment) => /\p{L}/u.test(fragment));

/** Keys that are no text on a page. */
const NOT_TEXT: MessageKey[] = ['htmlLang', 'locale'];
const textKeys = (Object.keys(translations.eng) as MessageKey[]).filter((key) => !NOT_TEXT.includes(key));

/** What a page in `language` says in English: English words, and fixed parts of English messages that the language's own messages never use. */
function englishIn(text: string, language: PageLanguage): string[] {
  const withoutNames = names.reduce((rest, name) => rest.replaceAll(name, ' '), text);
  const own = Object.values(translations[language]).join('\n');
  const words = [...withoutNames.matchAll(/\p{L}+/gu)].map((m) => m[0]).filter((word) => englishWords.has(word.toLowerCase()));
  const messages = textKeys
    .filter((key) => translations.eng[key] !== translations[language][key])
    .flatMap((key) => fragmentsOf(translations.eng[key]))
    .filter((fragment) => fragment.length > 2 && !wordsPattern(fragment).test(own) && wordsPattern(fragment).test(withoutNames));
  return [...new Set([...words, ...messages])];
}

/** The other language of the browser: pages of a payment follow the payment, never the browser (docs/pages.md "Languages"). */
const otherBrowser = (language: PageLanguage) => (language === 'eng' ? 'nl-NL,nl;q=0.9' : 'en-GB,en;q=0.9');

interface Seen {
  kind: string;
  body: string;
}

for (const backend of backends.slice(0, 1)) {
  describe(`every page kind in every page language, read as text (${backend})`, () => {
    const t = suiteApp(backend);

    /** The walk of one language: requests as its shopper's browser sends them, each page seen kept. */
    function walker(language: PageLanguage) {
      const seen: Seen[] = [];
      const headers = { 'accept-language': otherBrowser(language) };
      const keep = (kind: string, response: LightMyRequestResponse, status = 200) => {
        assert.equal(response.statusCode, status, `${kind} (${language}): ${response.body.slice(0, 2000)}`);
        seen.push({ kind, body: response.body });
        return response.body;
      };
      const get = (url: string, extra: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { ...headers, ...extra } });
      const post = (url: string, fields: Record<string, string>, extra: Record<string, string> = {}) =>
        t.app.inject({
          method: 'POST',
          url,
          headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', ...extra },
          payload: new URLSearchParams(fields).toString(),
        });
      const create = async (body: Record<string, unknown>, key = t.merchant.testApiKey) => {
        const created = await t.client.post(
          body.dataType ? '/token' : '/payment',
          { currency: 'EUR', method: 'card', returnUrl: 'https://shop.example/return', language, ...body },
          { key },
        );
        assert.equal(created.statusCode, 200, created.body);
        const { reference, payUrl } = created.json() as { reference: string; payUrl: string };
        return { reference, path: new URL(payUrl).pathname };
      };
      /** A view as the routes make it, for the variants rendered directly. */
      const view = (overrides: Partial<PaymentView> = {}): PaymentView => ({
        t: translator(language),
        nonce: 'nonce',
        token: 'token',
        csrf: 'csrf',
        merchantName: MERCHANT,
        amountText: amountText({ amount_minor: 2500, currency: 'eur' }, translator(language)('locale')),
        testMode: true,
        returnUrl: 'https://shop.example/return',
        ...overrides,
      });
      const render = (kind: string, page: { toString(): string }) => seen.push({ kind, body: String(page) });
      return { language, seen, keep, get, post, create, view, render };
    }
    type Walker = ReturnType<typeof walker>;

    /** Each page kind, and how a shopper reaches it. */
    const walks: { kind: string; walk: (w: Walker) => Promise<void> }[] = [
      {
        kind: 'card form, its errors, cancel and the failed outcome',
        async walk({ create, get, post, keep }) {
          const { path } = await create({ amount: '25.00' });
          const form = keep('card form', await get(path));
          keep('card form with errors', await post(`${path}/card`, { csrf: csrfOf(form), js: '0' }), 422);
          keep(
            'card form with wrong values',
            await post(`${path}/card`, { csrf: csrfOf(form), ...card({ cardNumber: '4111 1111 1111 1112', expiry: '13/99', cvc: '1', holderName: 'X' }) }),
            422,
          );
          keep('form from elsewhere', await post(`${path}/card`, { csrf: 'wrong', ...card() }), 403);
          const cancelled = await post(`${path}/cancel`, { csrf: csrfOf(form) });
          assert.equal(cancelled.statusCode, 303);
          keep('failed outcome', await get(path));
        },
      },
      {
        kind: 'each card error and attempts left',
        async walk({ render, view }) {
          const errors: [CardField, CardError][] = [
            ['cardNumber', 'number_required'],
            ['cardNumber', 'number_invalid'],
            ['cardNumber', 'brand_unknown'],
            ['cardNumber', 'brand_not_accepted'],
            ['cardNumber', 'brand_not_preselected'],
            ['expiry', 'expiry_required'],
            ['expiry', 'expiry_invalid'],
            ['expiry', 'expiry_past'],
            ['cvc', 'cvc_required'],
            ['cvc', 'cvc_invalid'],
            ['holderName', 'name_required'],
            ['holderName', 'name_invalid'],
          ];
          for (const [field, error] of errors) {
            render(
              `card error ${error}`,
              cardPage(view(), {
                accepted: cardBrands,
                preselected: error === 'brand_not_preselected' ? 'visa' : undefined,
                errors: { [field]: error },
                attemptsLeft: 3,
              }),
            );
          }
          render(
            'stored card with errors',
            storedCardPage(view(), { brand: 'visa', maskedPan: '**** 1111', askCvc: true, errors: { cvc: 'cvc_invalid', expiry: 'expiry_past' }, attemptsLeft: 2 }),
          );
        },
      },
      {
        kind: '3-D Secure 2 challenge: pop-up, frame, bank page, pending, answer, notification, success',
        async walk({ create, get, post, keep }) {
          const { path } = await create({ amount: '25.11' });
          const form = await get(path);
          const popUp = keep('challenge pop-up', await post(`${path}/card`, { csrf: csrfOf(form.body), ...card() }));
          const frame = keep('challenge frame', await get(/<iframe[^>]+src="([^"]+)"/.exec(popUp)![1]));
          const bank = keep(
            'bank challenge',
            await post(`${ACS_SIMULATOR_PATH}/challenge`, { creq: hiddenValue(frame, 'creq'), threeDSSessionData: hiddenValue(frame, 'threeDSSessionData') }),
          );
          const complete = { csrf: csrfOf(popUp), session: hiddenValue(popUp, 'session'), sealedCard: hiddenValue(popUp, 'sealedCard') };
          keep('challenge not yet done', await post(`${path}/3ds/complete`, complete), 409);
          const answered = keep(
            'bank answered',
            await post(`${ACS_SIMULATOR_PATH}/challenge/answer`, {
              acsTransID: hiddenValue(bank, 'acsTransID'),
              token: hiddenValue(bank, 'token'),
              threeDSSessionData: hiddenValue(bank, 'threeDSSessionData'),
              code: '1234',
            }),
          );
          keep(
            'notification',
            await post(`${path}/3ds/notify`, { cres: hiddenValue(answered, 'cres'), threeDSSessionData: hiddenValue(answered, 'threeDSSessionData') }),
          );
          assert.equal((await post(`${path}/3ds/complete`, complete)).statusCode, 303);
          keep('success outcome', await get(path));
        },
      },
      {
        kind: '3-D Secure 1: redirect, bank page, answer, back at Kassa',
        async walk({ create, get, post, keep }) {
          const { path } = await create({ amount: '25.13' });
          const form = await get(path);
          const redirect = keep('3DS1 redirect', await post(`${path}/card`, { csrf: csrfOf(form.body), ...card() }));
          const bank = keep(
            'bank 3DS1',
            await post(`${ACS_SIMULATOR_PATH}/3ds1`, {
              PaReq: hiddenValue(redirect, 'PaReq'),
              TermUrl: hiddenValue(redirect, 'TermUrl'),
              MD: hiddenValue(redirect, 'MD'),
            }),
          );
          const answered = keep(
            'bank 3DS1 answered',
            await post(`${ACS_SIMULATOR_PATH}/3ds1/answer`, {
              acsTransID: hiddenValue(bank, 'acsTransID'),
              token: hiddenValue(bank, 'token'),
              TermUrl: hiddenValue(bank, 'TermUrl'),
              MD: hiddenValue(bank, 'MD'),
              code: '1234',
            }),
          );
          keep(
            '3DS1 outcome',
            await post(new URL(hiddenValue(bank, 'TermUrl').replaceAll('&amp;', '&')).pathname, {
              PaRes: hiddenValue(answered, 'PaRes'),
              MD: hiddenValue(answered, 'MD'),
            }),
          );
        },
      },
      {
        kind: "the acquirer's 3-D Secure: the issuer's 3DS method, and a method's step reached by a POST",
        async walk({ render, view }) {
          render('3DS method', methodPage(view(), { sessionId: 'session', sealedCard: 'sealed' }));
          render('3DS method frame', methodFramePage(view(), 'https://issuer.example/method', 'data'));
          render(
            'POST to a method',
            postRedirectPage(view(), {
              url: 'https://method.example/',
              fields: {},
              texts: { title: 'elsewhereTitle', intro: 'elsewhereIntro', button: 'elsewhereContinue' },
            }),
          );
        },
      },
      {
        kind: 'every outcome and failure, and an authorisation in flight',
        async walk({ render, view }) {
          for (const status of statuses) if (status !== 'failed') render(`outcome ${status}`, outcomePage(view(), status, null));
          for (const code of failureCodes) render(`failure ${code}`, outcomePage(view(), 'failed', code));
          render('authorisation in flight', outcomePage(view(), 'pending', null, true));
        },
      },
      {
        kind: 'landing page, wallet test sheet',
        async walk({ create, get, keep }) {
          keep('landing page', await get((await create({ amount: '25.00', method: 'landingpage', details: { expirationDuration: 'PT30M' } })).path));
          keep('wallet sheet', await get((await create({ amount: '25.00', method: 'walletpay' })).path));
        },
      },
      {
        kind: 'card enrollment, its outcome, the stored card',
        async walk({ create, get, post, keep }) {
          const enrollment = await create({ dataType: 'card' });
          const form = keep('save card', await get(enrollment.path));
          assert.equal((await post(`${enrollment.path}/card`, { csrf: csrfOf(form), ...card({ cardNumber: '4000 0000 0000 0200' }) })).statusCode, 303);
          keep('card saved', await get(enrollment.path));
          // A card whose bank asks for a code (…11): its page asks to confirm the card, with no amount.
          const challenged = await create({ dataType: 'card' });
          const challengeForm = await get(challenged.path);
          const popUp = await post(`${challenged.path}/card`, { csrf: csrfOf(challengeForm.body), ...card({ cardNumber: '4000 0000 0000 0911' }) });
          const frame = await get(/<iframe[^>]+src="([^"]+)"/.exec(popUp.body)![1]);
          keep(
            'bank confirms a card',
            await post(`${ACS_SIMULATOR_PATH}/challenge`, { creq: hiddenValue(frame.body, 'creq'), threeDSSessionData: hiddenValue(frame.body, 'threeDSSessionData') }),
          );
          const enrolled = (await t.client.get(`/transaction?reference=${enrollment.reference}`)).json();
          keep('stored card', await get((await create({ amount: '25.00', details: { vaultAccessToken: enrolled.details.vaultAccessToken } })).path));
        },
      },
      {
        kind: 'the test pages of the methods paid elsewhere, and a bank transfer still open',
        async walk({ create, get, keep, render, view }) {
          const orderLines = [{ type: 'PHYSICAL', name: 'Theepot', quantity: 1, unitPrice: 25, totalPrice: 25, vatRate: 21 }];
          for (const method of ['ideal', 'paypal', 'klarna', 'banktransfer']) {
            const { path } = await create({ amount: '25.00', method, ...(method === 'klarna' ? { orderLines } : {}) });
            assert.equal((await get(path)).statusCode, 303);
            keep(`${method} test page`, await get(`${path}/simulator`));
          }
          // The acquirer's instructions of a live transfer, on the payment's page while it is open.
          render(
            'bank transfer open',
            outcomePage(view(), 'pending', null, false, undefined, { beneficiary: MERCHANT, iban: 'NL13TEST0123456789', bic: 'TESTNL01', reference: 'R1' }),
          );
        },
      },
      {
        kind: 'live payments Kassa cannot take yet',
        async walk({ create, get, keep }) {
          keep('cards unavailable', await get((await create({ amount: '25.00' }, t.merchant.liveApiKey)).path), 503);
          keep('wallet unavailable', await get((await create({ amount: '25.00', method: 'walletpay' }, t.merchant.liveApiKey)).path), 503);
        },
      },
      {
        kind: "pages without a payment, in the browser's language: not found, an unknown bank transaction, Kassa's own address, the test return page",
        async walk({ language, get, post, keep }) {
          const own = { 'accept-language': translator(language)('locale') };
          keep('payment not found', await get('/pay/unknown-token', own), 404);
          keep('bank transaction unknown', await post(`${ACS_SIMULATOR_PATH}/challenge`, { creq: 'unknown' }, own), 404);
          keep("Kassa's own address", await get('/', own));
          keep("Kassa's stand-in for a shop's returnUrl", await get('/test/return', own));
        },
      },
    ];

    for (const language of pageLanguages) {
      test(`${language}: every page kind is in ${language}, every message seen`, async () => {
        const w = walker(language);
        for (const { walk } of walks) await walk(w);
        const t = translator(language);
        const problems: string[] = [];
        const texts = w.seen.map(({ kind, body }) => {
          const text = pageText(body);
          const lang = /<html lang="([^"]+)"/.exec(body)?.[1];
          if (lang !== t('htmlLang')) problems.push(`${kind}: <html lang="${lang}">`);
          const found = language === 'eng' ? [] : englishIn(text, language);
          if (found.length) problems.push(`${kind}: English ${JSON.stringify(found)} in "${text}"`);
          return text;
        });
        const all = texts.join('\n');
        const unseen = textKeys.filter((key) => !fragmentsOf(translations[language][key]).every((fragment) => wordsPattern(fragment).test(all)));
        assert.deepEqual(problems, []);
        assert.deepEqual(unseen, [], 'messages no page of the walk showed: a page kind the walk misses, or a message no page uses');
      });
    }
  });
}
