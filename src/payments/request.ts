/**
 * Parses and validates a create-payment request (spec §4.1, DESIGN §2) into a
 * `PaymentRequest`. Pure: no I/O. Every failing field is reported at once; the
 * 3-D Secure 2 fields (§2.4–2.9) are checked by threeds/validate.
 */
import { FieldErrors, type FieldError } from '../ground/problem.ts';
import { findCurrency, parseAmount, type Currency } from '../ground/amount.ts';
import { given, isObject, parseCommonFields, type CommonFields } from './common-fields.ts';
import { parseIsoDuration } from '../lib/duration.ts';
import { type MerchantSettings } from '../merchants/merchants.ts';
import { paymentMethods, type PaymentMethod } from '../ground/payment-method.ts';
import { cardBrands, type CardBrand } from '../ground/card-brand.ts';
import { validateThreeDS, type ThreeDSData } from '../threeds/validate.ts';
import { parseWalletToken, type WalletPaymentToken } from '../wallet/index.ts';
import { checkValidationUrl } from '../wallet/merchant-session.ts';

/** How the customer pays: decides required fields, the response shape and the page flow. */
export type Flow = 'card' | 'vault' | 'landingpage' | 'walletpay-hosted' | 'walletpay-direct' | 'walletpay-hybrid';

export interface PaymentRequest extends CommonFields {
  method: PaymentMethod;
  flow: Flow;
  type: 'sale' | 'authorise';
  amountMinor: number;
  currency: Currency;
  brand?: CardBrand;
  storeInVault: boolean;
  orderLines?: unknown[];
  expirationDuration?: string;
  expirationMs?: number;
  details: {
    vaultAccessToken?: string;
    walletPayEncryptedToken?: WalletPaymentToken;
    walletPayValidationUrl?: string;
    walletPayDomainName?: string;
  };
  threeDS: ThreeDSData;
}

const MIN_EXPIRATION_MS = 60_000;
const MAX_EXPIRATION_MS = 30 * 24 * 3600_000;
const MAX_ORDER_LINES = 200;


export function parsePaymentRequest(
  body: Record<string, unknown>,
  settings: MerchantSettings,
  mode: 'test' | 'live' = 'test',
): { errors: FieldError[]; request?: PaymentRequest } {
  const errors = new FieldErrors();

  // method
  let method: PaymentMethod | undefined;
  if (!given(body.method)) errors.add('/method', 'required', 'is required');
  else if (!paymentMethods.includes(body.method as PaymentMethod)) {
    errors.add('/method', 'enum', `must be one of ${paymentMethods.join(', ')}`);
  } else if (!settings.methods.includes(body.method as PaymentMethod)) {
    errors.add('/method', 'not_enabled', `${body.method} is not enabled for this merchant`);
  } else method = body.method as PaymentMethod;

  // currency and amount
  let currency: Currency | undefined;
  if (!given(body.currency)) errors.add('/currency', 'required', 'is required');
  else if (typeof body.currency !== 'string' || !/^[A-Za-z]{3}$/.test(body.currency)) {
    errors.add('/currency', 'format', 'must be a three-letter ISO 4217 code such as EUR');
  } else if (!(currency = findCurrency(body.currency))) errors.add('/currency', 'enum', 'is not an ISO 4217 currency code');
  let amountMinor: number | undefined;
  if (!given(body.amount)) errors.add('/amount', 'required', 'is required');
  else {
    const parsed = parseAmount(body.amount, currency ?? { code: 'xxx', numeric: '', exponent: 4 });
    if (!parsed.ok) errors.add('/amount', parsed.code, parsed.message);
    else if (currency) amountMinor = parsed.minor;
  }

  // details
  const details: PaymentRequest['details'] = {};
  let expirationDuration: string | undefined;
  let expirationMs: number | undefined;
  if (given(body.details) && !isObject(body.details)) errors.add('/details', 'type', 'must be an object');
  else if (isObject(body.details)) {
    const d = body.details;
    for (const name of ['vaultAccessToken', 'walletPayValidationUrl', 'walletPayDomainName', 'expirationDuration'] as const) {
      if (given(d[name]) && typeof d[name] !== 'string') errors.add(`/details/${name}`, 'type', 'must be a string');
    }
    if (typeof d.vaultAccessToken === 'string' && d.vaultAccessToken) details.vaultAccessToken = d.vaultAccessToken;
    if (typeof d.walletPayValidationUrl === 'string' && d.walletPayValidationUrl) {
      const refused = checkValidationUrl(d.walletPayValidationUrl);
      if (refused) errors.list.push(refused);
      else details.walletPayValidationUrl = d.walletPayValidationUrl;
    }
    if (typeof d.walletPayDomainName === 'string' && d.walletPayDomainName) {
      if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(d.walletPayDomainName)) {
        errors.add('/details/walletPayDomainName', 'format', 'must be a host name only, such as shop.example.com');
      } else details.walletPayDomainName = d.walletPayDomainName.toLowerCase();
    }
    if (given(d.walletPayEncryptedToken)) {
      const parsed = parseWalletToken(d.walletPayEncryptedToken, '/details/walletPayEncryptedToken');
      errors.list.push(...parsed.errors);
      if (parsed.token) details.walletPayEncryptedToken = parsed.token;
    }
    if (typeof d.expirationDuration === 'string' && d.expirationDuration) {
      const ms = parseIsoDuration(d.expirationDuration);
      if (ms === undefined) errors.add('/details/expirationDuration', 'format', 'must be an ISO 8601 duration such as PT15M');
      else if (ms < MIN_EXPIRATION_MS || ms > MAX_EXPIRATION_MS) {
        errors.add('/details/expirationDuration', 'range', 'must be between PT1M and P30D');
      } else [expirationDuration, expirationMs] = [d.expirationDuration, ms];
    }
  }

  // The flow follows the wallet fields sent, valid or not, so a refused one is reported as such (not as a missing returnUrl).
  const sent = isObject(body.details) ? body.details : {};
  const flow = method && decideFlow(method, { direct: given(sent.walletPayEncryptedToken), hybrid: given(sent.walletPayValidationUrl) || given(sent.walletPayDomainName), vault: !!details.vaultAccessToken });
  if (flow) {
    if (method !== 'card' && details.vaultAccessToken) errors.add('/details/vaultAccessToken', 'not_allowed', 'is only allowed with method card');
    if (method === 'walletpay' && flow === 'walletpay-direct' && (details.walletPayValidationUrl || details.walletPayDomainName)) {
      errors.add('/details/walletPayEncryptedToken', 'not_allowed', 'cannot be combined with walletPayValidationUrl/walletPayDomainName');
    }
    if (flow === 'walletpay-hybrid') {
      for (const name of ['walletPayValidationUrl', 'walletPayDomainName'] as const) {
        if (!details[name] && !errors.has(`/details/${name}`)) {
          errors.add(`/details/${name}`, 'conditional_required', 'is required for the hybrid wallet flow (with walletPayValidationUrl and walletPayDomainName)');
        }
      }
    }
  }

  // type / transactionType
  let type: 'sale' | 'authorise' = 'sale';
  for (const name of ['type', 'transactionType'] as const) {
    if (!given(body[name])) continue;
    if (body[name] !== 'sale' && body[name] !== 'authorise') errors.add(`/${name}`, 'enum', 'must be one of sale, authorise');
    else if (body[name] === 'authorise' && method && method !== 'card') errors.add(`/${name}`, 'not_allowed', 'authorise is only available for method card');
    else type = body[name] as 'sale' | 'authorise';
  }
  if (given(body.type) && given(body.transactionType) && body.type !== body.transactionType) {
    errors.add('/transactionType', 'conflict', 'must agree with type');
  }

  // returnUrl: every flow that sends the customer to a Kassa page comes back to it.
  const common = parseCommonFields(body, errors, flow !== undefined && flow !== 'walletpay-direct' && flow !== 'walletpay-hybrid', mode);

  let brand: CardBrand | undefined;
  if (given(body.brand)) {
    if (!cardBrands.includes(body.brand as CardBrand)) errors.add('/brand', 'enum', `must be one of ${cardBrands.join(', ')}`);
    else if (!settings.cardBrands.includes(body.brand as CardBrand)) errors.add('/brand', 'not_enabled', `${body.brand} is not enabled for this merchant`);
    else if (method && method !== 'card' && method !== 'landingpage') errors.add('/brand', 'not_allowed', 'is only allowed for card payments');
    else brand = body.brand as CardBrand;
  }

  let storeInVault = false;
  if (given(body.storeInVault)) {
    if (body.storeInVault !== 'yes' && body.storeInVault !== 'no') errors.add('/storeInVault', 'enum', 'must be yes or no');
    else if (body.storeInVault === 'yes' && method && method !== 'card') errors.add('/storeInVault', 'not_allowed', 'is only allowed for card payments');
    else storeInVault = body.storeInVault === 'yes';
  }

  let orderLines: unknown[] | undefined;
  if (given(body.orderLines)) {
    if (!Array.isArray(body.orderLines) || body.orderLines.some((line) => !isObject(line))) {
      errors.add('/orderLines', 'type', 'must be an array of objects');
    } else if (body.orderLines.length > MAX_ORDER_LINES) errors.add('/orderLines', 'max_items', `must have at most ${MAX_ORDER_LINES} lines`);
    else orderLines = body.orderLines;
  }


  const threeDS = validateThreeDS(body, {
    operation: 'payment',
    usesVaultToken: flow === 'vault',
    merchantCapturesCardData: flow === 'walletpay-direct' || flow === 'walletpay-hybrid',
  });
  errors.list.push(...threeDS.errors);

  if (errors.list.length > 0 || !method || !flow || !currency || amountMinor === undefined) return { errors: errors.list };
  return {
    errors: errors.list,
    request: {
      ...common, method, flow, type, amountMinor, currency, brand, storeInVault, orderLines, expirationDuration, expirationMs, details, threeDS: threeDS.data,
    },
  };
}

function decideFlow(method: PaymentMethod, sent: { direct: boolean; hybrid: boolean; vault: boolean }): Flow {
  if (method === 'card') return sent.vault ? 'vault' : 'card';
  if (method === 'landingpage') return 'landingpage';
  if (sent.direct) return 'walletpay-direct';
  if (sent.hybrid) return 'walletpay-hybrid';
  return 'walletpay-hosted';
}
