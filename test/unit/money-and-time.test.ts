/** Pure domain logic: amounts, durations, the state machine, languages, return URLs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findCurrency, formatAmount, parseAmount } from '../../src/ground/amount.ts';
import { parseIsoDuration } from '../../src/lib/duration.ts';
import { canTransition, isFinal, statuses, transitions } from '../../src/ground/states.ts';
import { checkLanguage } from '../../src/ground/language.ts';
import { checkReturnUrl } from '../../src/lib/urls.ts';
import { loadConfig } from '../../src/config.ts';

const eur = findCurrency('EUR')!;
const jpy = findCurrency('jpy')!;
const bhd = findCurrency('BHD')!;

test('amounts parse exactly into minor units', () => {
  const cases: [unknown, typeof eur, number][] = [
    ['10.50', eur, 1050],
    [10.5, eur, 1050],
    [0.1, eur, 10],
    [0.3, eur, 30],
    ['0.07', eur, 7],
    [19.99, eur, 1999],
    [1.005, bhd, 1005],
    ['100', jpy, 100],
    ['100.0', jpy, 100],
    [' 7.5 ', eur, 750],
    ['000012.30', eur, 1230],
  ];
  for (const [input, currency, minor] of cases) assert.deepEqual(parseAmount(input, currency), { ok: true, minor }, String(input));
});

test('amounts that do not fit are refused with a reason', () => {
  const cases: [unknown, typeof eur, string][] = [
    ['1.001', eur, 'decimals'],
    [0.001, eur, 'decimals'],
    ['1.5', jpy, 'decimals'],
    ['0', eur, 'range'],
    ['0.00', eur, 'range'],
    ['-1', eur, 'format'],
    ['1,50', eur, 'format'],
    ['1e2', eur, 'format'],
    [1e21, eur, 'format'],
    ['', eur, 'format'],
    [Number.NaN, eur, 'format'],
    [null, eur, 'type'],
    [{}, eur, 'type'],
    ['1000000000000000', eur, 'range'],
  ];
  for (const [input, currency, code] of cases) {
    const result = parseAmount(input, currency);
    assert.equal(result.ok, false, String(input));
    if (!result.ok) assert.equal(result.code, code, String(input));
  }
});

test('minor units format back to decimal text', () => {
  for (const [minor, currency, text] of [
    [1050, eur, '10.50'],
    [7, eur, '0.07'],
    [100, jpy, '100'],
    [1005, bhd, '1.005'],
  ] as const) {
    assert.equal(formatAmount(minor, currency), text);
  }
});

test('ISO 8601 durations', () => {
  const cases: [string, number | undefined][] = [
    ['PT15M', 900_000],
    ['PT1H', 3_600_000],
    ['P1D', 86_400_000],
    ['P1DT2H', 93_600_000],
    ['PT90S', 90_000],
    ['P1W', 604_800_000],
    ['P', undefined],
    ['PT', undefined],
    ['15M', undefined],
    ['P1M', undefined],
    ['P1Y', undefined],
    ['PT1.5H', undefined],
  ];
  for (const [text, ms] of cases) assert.equal(parseIsoDuration(text), ms, text);
});

test('the state machine: final states never change', () => {
  for (const from of statuses) {
    for (const to of statuses) {
      assert.equal(canTransition(from, to), (transitions[from] as readonly string[]).includes(to));
    }
  }
  assert.ok(canTransition('pending', 'success'));
  assert.ok(canTransition('manualintervention', 'failed'));
  assert.ok(!canTransition('success', 'failed'));
  assert.ok(!canTransition('failed', 'pending'));
  assert.deepEqual(statuses.filter(isFinal), ['success', 'failed']);
});

test('languages: ISO 639-2/T codes only', () => {
  for (const code of ['eng', 'nld', 'NLD', 'deu', 'fra', 'zho']) assert.equal(checkLanguage(code).ok, true, code);
  for (const code of ['en', 'dut', 'ger', 'xxx', 'english']) assert.equal(checkLanguage(code).ok, false, code);
});

test('return URLs: absolute web links, and app deep links only with a scheme the operator allows', () => {
  for (const url of ['https://a.example/x', 'http://localhost:3000/r']) assert.equal(checkReturnUrl(url).ok, true, url);
  const apps = ['myapp', 'com.shop.app'];
  for (const url of ['myapp://done', 'com.shop.app:/callback', 'MyApp://done']) {
    assert.equal(checkReturnUrl(url, apps).ok, true, url);
    assert.equal(checkReturnUrl(url).ok, false, `${url} without the operator allowing it`);
  }
  const refused = [
    'javascript:alert(1)',
    'data:text/html,hi',
    'file:///etc/passwd',
    'intent://x#Intent;end',
    'x-javascript:alert(1)',
    'ms-settings:',
    '/relative',
    'https://',
    'x'.repeat(3000),
  ];
  for (const url of refused) assert.equal(checkReturnUrl(url, apps).ok, false, url);
});

test('RETURN_URL_SCHEMES: app schemes, lower case and without colon; never one that runs code or reads local data', () => {
  assert.deepEqual(loadConfig({}).returnUrlSchemes, []);
  assert.deepEqual(loadConfig({ RETURN_URL_SCHEMES: ' MyShop:, com.shop.app ,' }).returnUrlSchemes, ['myshop', 'com.shop.app']);
  for (const raw of ['javascript', 'data', 'my shop', '1app', 'file:']) assert.throws(() => loadConfig({ RETURN_URL_SCHEMES: raw }), /RETURN_URL_SCHEMES/, raw);
});
