/** Pure parts of the pages: translations complete, escaping, CSP, sealed card data, browser data. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { formatDateTime, moneyText, pageLanguage, translations, translator } from '../../src/pages/i18n.ts';
import { argumentsOf } from '../../src/lib/catalogues.ts';
import { amountText } from '../../src/ground/amount.ts';
import { html } from '../../src/lib/html.ts';
import { contentSecurityPolicy, sourceOf } from '../../src/lib/page-security.ts';
import { CardSealer } from '../../src/payments/card/card-seal.ts';
import { collectBrowserFacts, windowSizeFor } from '../../src/pages/browser-info.ts';

const english = translations.eng;
for (const [language, messages] of Object.entries(translations)) {
  test(`catalogue ${language}: every message present, non-empty, with the same arguments as eng`, () => {
    assert.deepEqual(Object.keys(messages).sort(), Object.keys(english).sort());
    for (const [key, message] of Object.entries(messages)) {
      assert.ok(message.trim(), `${language}.${key} is empty`);
      assert.deepEqual(argumentsOf(message), argumentsOf(english[key as keyof typeof english]), `${language}.${key} arguments`);
    }
  });
}

test('the translator fills values and falls back to eng', () => {
  assert.equal(translator('nld')('pay', { amount: '€ 1,00' }), 'Betaal € 1,00');
  assert.equal(translator('fra')('pay', { amount: '1,00 €' }), 'Payer 1,00 €');
  assert.equal(translator('spa')('pay', { amount: '€1.00' }), 'Pay €1.00');
});

/** [payment's language, Accept-Language, the page's language] (docs/pages.md "Languages"). */
const languageCases: [string | undefined, string | undefined, string][] = [
  ['deu', undefined, 'deu'],
  ['fra', 'nl-NL,nl;q=0.9', 'fra'],
  ['eng', 'fr-FR', 'eng'],
  ['spa', 'de-CH,de;q=0.9,en;q=0.8', 'deu'],
  ['spa', 'es-ES,fr;q=0.5,en;q=0.7', 'eng'],
  ['spa', 'es,pt', 'eng'],
  [undefined, 'nl-BE', 'nld'],
  [undefined, 'fr;q=0,de', 'deu'],
  [undefined, undefined, 'eng'],
];
for (const [payment, accept, expected] of languageCases) {
  test(`a payment in ${payment ?? 'no language'} with Accept-Language ${accept ?? '(none)'} gets a page in ${expected}`, () =>
    assert.equal(pageLanguage(payment, accept), expected));
}

/** [language, the amount 1234.56 EUR, 26 November 2026 15:30 UTC] as its pages write them. */
const formatCases: [string, string, string][] = [
  ['eng', '€1,234.56', '26 November 2026 at 15:30'],
  ['nld', '€\u00a01.234,56', '26 november 2026 om 15:30'],
  ['deu', '1.234,56\u00a0€', '26. November 2026 um 15:30'],
  ['fra', '1\u202f234,56\u00a0€', '26 novembre 2026 à 15:30'],
];
for (const [language, amount, time] of formatCases) {
  test(`${language} pages write amounts and times in their own locale`, () => {
    const t = translator(language);
    assert.equal(amountText({ amount_minor: 123456, currency: 'eur' }, t('locale')), amount);
    assert.equal(formatDateTime(t, Date.UTC(2026, 10, 26, 15, 30)), time);
  });
}

test("an amount in major units as given (an order line, the issuer page) gets the currency's decimals and the page's locale", () => {
  assert.equal(moneyText(translator('eng'), -5, 'eur'), '-€5.00');
  assert.equal(moneyText(translator('deu'), ' 4.95 ', 'EUR'), '4,95\u00a0€');
  assert.equal(moneyText(translator('fra'), '1200', 'jpy'), '1\u202f200\u00a0JPY');
});

test('html escapes every interpolated value', () => {
  const name = `<script>alert("x")</script>&'`;
  assert.equal(
    html`<p title="${name}">${name}</p>`.value,
    '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
  );
  assert.equal(html`<ul>${['a', html`<b>b</b>`]}</ul>`.value, '<ul>a<b>b</b></ul>');
});

test('the CSP allows only nonce scripts, and forms to the returnUrl', () => {
  const csp = contentSecurityPolicy({ nonce: 'abc', frameAncestors: "'none'", formTargets: [sourceOf('https://shop.example/return?x=1')!, sourceOf('myshop://done')!] });
  assert.equal(
    csp,
    "default-src 'none'; script-src 'nonce-abc'; style-src 'nonce-abc'; img-src 'self' data:; form-action 'self' https://shop.example myshop:; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
});

test('sealed card data opens only for its binding and before it expires', () => {
  const sealer = new CardSealer(randomBytes(32));
  const card = { pan: '4111111111111111', expiryMonth: 1, expiryYear: 2030, cvc: '123', holderName: 'Jo', brand: 'visa' as const };
  const sealed = sealer.seal(card, 'tr_1|s1', 2000);
  assert.doesNotMatch(sealed, /4111/);
  assert.deepEqual(sealer.unseal(sealed, 'tr_1|s1', 1000), card);
  assert.equal(sealer.unseal(sealed, 'tr_1|s2', 1000), undefined);
  assert.equal(sealer.unseal(sealed, 'tr_1|s1', 3000), undefined);
  // Tampered: its first character changed (to another one: about one sealed text in 64 starts with A already).
  assert.equal(sealer.unseal(`${sealed.startsWith('A') ? 'B' : 'A'}${sealed.slice(1)}`, 'tr_1|s1', 1000), undefined);
  assert.equal(new CardSealer(randomBytes(32)).unseal(sealed, 'tr_1|s1', 1000), undefined);
});

test('browser data: from the script when it ran, from the request otherwise', () => {
  const request = { accept: 'text/html', userAgent: 'Mozilla/5.0', acceptLanguage: 'nl-NL,nl;q=0.9', ip: '127.0.0.1' };
  const scripted = collectBrowserFacts(
    { js: '1', screenWidth: '1920', screenHeight: '1080', colorDepth: '30', timeZone: '-60', browserLanguage: 'nl-NL', windowWidth: '1200' },
    request,
  );
  assert.deepEqual(scripted, {
    javascriptEnabled: true,
    collected: {
      javaEnabled: false,
      acceptHeaders: 'text/html',
      userAgent: 'Mozilla/5.0',
      ipAddress: '127.0.0.1',
      language: 'nl-NL',
      screenWidth: '1920',
      screenHeight: '1080',
      screenColorDepth: '24',
      timeZone: '-60',
      challengeWindowSize: 'W500H600',
    },
  });
  const plain = collectBrowserFacts({ js: '0' }, request);
  assert.equal(plain.javascriptEnabled, false);
  assert.equal(plain.collected.language, 'nl-NL');
  assert.equal(plain.collected.screenWidth, undefined);
  assert.deepEqual([windowSizeFor(320), windowSizeFor(500), windowSizeFor(800)], ['FULL_SCREEN', 'W390H400', 'W500H600']);
});
