/**
 * Merchants and their API keys: creation (with the webhook signing secret every merchant
 * has), key rotation, and resolving a presented key to its merchant and mode. Owns
 * `MerchantSettings` (enabled methods and card brands).
 */
import { timingSafeEqual } from 'node:crypto';
import type { Db, Store } from '../store/store.ts';
import type { Mode } from '../store/schema.ts';
import { findApiKey, findMerchant, insertApiKey, insertMerchant, listMerchants, revokeApiKeys, updateMerchantSettings } from '../store/merchants.ts';
import { insertMerchantWebhook } from '../store/webhooks.ts';
import { bindings } from '../store/secrets.ts';
import { newApiKey, newMerchantId, newWebhookSecret, sha256Hex } from '../lib/tokens.ts';
import { cardBrands, type CardBrand } from '../ground/card-brand.ts';
import { methods as methodTable, paymentMethods, type PaymentMethod } from '../ground/payment-method.ts';
import { invalidSetting, Problem } from '../ground/problem.ts';

export interface MerchantSettings {
  methods: PaymentMethod[];
  cardBrands: CardBrand[];
  /** docs/decisions.md#vault: `direct` (no card form) or `confirm` (pre-filled form, CVC asked). */
  vaultPaymentPath: 'direct' | 'confirm';
}

/**
 * The methods a merchant accepts when created (`kassa merchant create`), as the methods table
 * says: those Kassa had before each merchant enabled its own. A method added to Kassa later stays
 * off for every merchant until an operator enables it (docs/console.md "Settings"); the demo
 * merchant gets every known method instead (demo.ts).
 */
export const methodsEnabledForNewMerchants = paymentMethods.filter((method) => methodTable[method].enabledForNewMerchants);

export const defaultSettings = (methods: readonly PaymentMethod[] = methodsEnabledForNewMerchants): MerchantSettings => ({
  methods: paymentMethods.filter((method) => methods.includes(method)),
  cardBrands: [...cardBrands],
  vaultPaymentPath: 'confirm',
});

export interface Caller {
  merchantId: string;
  merchantName: string;
  mode: Mode;
  settings: MerchantSettings;
}

export interface CreatedMerchant {
  merchantId: string;
  testApiKey: string;
  liveApiKey: string;
}

const keyPrefix = (key: string) => key.slice(0, 12);

/** A merchant with a test and a live API key, each shown only now (`kassa merchant create`). */
export async function createMerchant(store: Store, name: string, now = Date.now()): Promise<CreatedMerchant> {
  const { merchantId, keys } = await insertNewMerchant(store, { name, modes: ['test', 'live'] }, now);
  return { merchantId, testApiKey: keys.test!, liveApiKey: keys.live! };
}

/**
 * A merchant with a test API key only, accepting `methods` (the demo merchant: every known method): a live key it gets
 * from `kassa key rotate --mode live`, shown once.
 */
export async function createTestMerchant(
  store: Store,
  merchant: { name: string; methods: readonly PaymentMethod[] },
  now = Date.now(),
): Promise<{ merchantId: string; testApiKey: string }> {
  const { merchantId, keys } = await insertNewMerchant(store, { name: merchant.name, modes: ['test'], settings: defaultSettings(merchant.methods) }, now);
  return { merchantId, testApiKey: keys.test! };
}

/** The merchant, an API key per mode of `modes`, and its webhook signing secret (sealed), in one unit of work. */
async function insertNewMerchant(store: Store, { name, modes, settings = defaultSettings() }: { name: string; modes: Mode[]; settings?: MerchantSettings }, now: number) {
  const merchantId = newMerchantId();
  const keys: Partial<Record<Mode, string>> = Object.fromEntries(modes.map((mode) => [mode, newApiKey(mode)]));
  const secret = store.secrets.seal(newWebhookSecret(), bindings.webhookSecret(merchantId));
  await store.transact(async (db) => {
    await insertMerchant(db, { id: merchantId, name, settings: JSON.stringify(settings), created: now });
    for (const mode of modes) {
      const key = keys[mode]!;
      await insertApiKey(db, { keyHash: sha256Hex(key), merchantId, mode, keyPrefix: keyPrefix(key), created: now });
    }
    await insertMerchantWebhook(db, { merchantId, secret, updated: now });
  });
  return { merchantId, keys };
}

/** Revokes the merchant's active keys of `mode` and issues a new one, shown once. */
export async function rotateApiKey(store: Store, merchantId: string, mode: Mode, now = Date.now()): Promise<string> {
  const key = newApiKey(mode);
  await store.transact(async (db) => {
    if (!(await findMerchant(db, merchantId))) throw new Problem('invalidSetting', `no merchant with id ${merchantId}`);
    await revokeApiKeys(db, merchantId, mode, now);
    await insertApiKey(db, { keyHash: sha256Hex(key), merchantId, mode, keyPrefix: keyPrefix(key), created: now });
  });
  return key;
}

export const vaultPaymentPaths = ['direct', 'confirm'] as const satisfies readonly MerchantSettings['vaultPaymentPath'][];

/** Sets the merchant's vault payment path (docs/decisions.md#vault): `direct` or `confirm` (`kassa merchant vault-path`, the console). */
export async function setVaultPaymentPath(store: Store, merchantId: string, path: string): Promise<MerchantSettings> {
  if (!(vaultPaymentPaths as readonly string[]).includes(path)) throw invalidSetting('path', `must be ${vaultPaymentPaths.join(' or ')}`);
  return changeSettings(store, merchantId, { vaultPaymentPath: path as MerchantSettings['vaultPaymentPath'] });
}

/** Sets the card brands the merchant accepts, at least one (`kassa merchant card-brands`, the console); kept in the order of `cardBrands`. */
export async function setCardBrands(store: Store, merchantId: string, brands: readonly string[]): Promise<MerchantSettings> {
  const unknown = brands.filter((brand) => !(cardBrands as readonly string[]).includes(brand));
  if (unknown.length > 0) throw invalidSetting('brands', `must be among ${cardBrands.join(', ')}; not ${unknown.join(', ')}`);
  if (brands.length === 0) throw invalidSetting('brands', 'must name at least one card brand');
  return changeSettings(store, merchantId, { cardBrands: cardBrands.filter((brand) => brands.includes(brand)) });
}

/** What `kassa merchant methods` and the console change: the methods named in `enable` turned on, those in `disable` off. */
export interface MethodsChange {
  enable?: readonly string[];
  disable?: readonly string[];
}

/**
 * Enables and disables payment methods of the merchant (`kassa merchant methods`, the console). A method not enabled is
 * refused at `POST /payment` and not listed by `GET /method` (docs/api.md#create-a-payment); none enabled is allowed,
 * and then the merchant accepts no payment. Kept in the order of `paymentMethods`.
 */
export async function changePaymentMethods(store: Store, merchantId: string, { enable = [], disable = [] }: MethodsChange): Promise<MerchantSettings> {
  for (const [field, names] of [
    ['enable', enable],
    ['disable', disable],
  ] as const) {
    const unknown = names.filter((name) => !(paymentMethods as readonly string[]).includes(name));
    if (unknown.length > 0) {
      const named = unknown.length === 1 ? `an unknown payment method: ${unknown[0]}` : `unknown payment methods: ${unknown.join(', ')}`;
      throw invalidSetting(field, `names ${named} (known: ${paymentMethods.join(', ')})`);
    }
  }
  const both = enable.filter((name) => disable.includes(name));
  if (both.length > 0) throw invalidSetting('disable', `names ${both.join(', ')}, which --enable names too`);
  return changeSettings(store, merchantId, (settings) => ({
    methods: paymentMethods.filter((method) => enable.includes(method) || (settings.methods.includes(method) && !disable.includes(method))),
  }));
}

/** The settings of the merchant (`kassa merchant methods` without a change). */
export async function merchantSettings(store: Store, merchantId: string): Promise<MerchantSettings> {
  const merchant = await findMerchant(store.read, merchantId);
  if (!merchant) throw new Problem('invalidSetting', `no merchant with id ${merchantId}`);
  return JSON.parse(merchant.settings) as MerchantSettings;
}

type SettingsChange = Partial<MerchantSettings> | ((settings: MerchantSettings) => Partial<MerchantSettings>);

/** One change to the merchant's settings (or one made from them), read and written in one unit of work. Running processes see it within API_KEY_CACHE_MS. */
async function changeSettings(store: Store, merchantId: string, change: SettingsChange): Promise<MerchantSettings> {
  return store.transact(async (db) => {
    const merchant = await findMerchant(db, merchantId);
    if (!merchant) throw new Problem('invalidSetting', `no merchant with id ${merchantId}`);
    const current = JSON.parse(merchant.settings) as MerchantSettings;
    const settings: MerchantSettings = { ...current, ...(typeof change === 'function' ? change(current) : change) };
    await updateMerchantSettings(db, merchantId, JSON.stringify(settings));
    return settings;
  });
}

/** What the settings show of a merchant: its settings and the prefixes of its active API keys. */
export interface MerchantOverview extends PaymentMerchant {
  created: number;
  keyPrefixes: Partial<Record<Mode, string>>;
}

/** Every merchant (or the one of `merchantId`) with the prefixes of its active keys, oldest first. */
export async function merchantOverviews(db: Db, merchantId?: string): Promise<MerchantOverview[]> {
  const merchants = new Map<string, MerchantOverview>();
  for (const row of await listMerchants(db, merchantId)) {
    const entry = merchants.get(row.id) ?? {
      id: row.id,
      name: row.name,
      created: row.created,
      settings: JSON.parse(row.settings) as MerchantSettings,
      keyPrefixes: {},
    };
    if (row.mode && row.key_prefix) entry.keyPrefixes[row.mode] = row.key_prefix;
    merchants.set(row.id, entry);
  }
  return [...merchants.values()];
}

/** A merchant as a payment's processing sees it: id, name and settings. */
export interface PaymentMerchant {
  id: string;
  name: string;
  settings: MerchantSettings;
}

/** The merchant a stored payment belongs to (which exists: merchants are never deleted). */
export async function paymentMerchant(db: Db, merchantId: string): Promise<PaymentMerchant> {
  const row = (await findMerchant(db, merchantId))!;
  return { id: row.id, name: row.name, settings: JSON.parse(row.settings) as MerchantSettings };
}

/** A key found valid: its caller, taken as it is until `until` (epoch ms). */
export interface VerifiedKey {
  caller: Caller;
  /** The key's first characters (api_keys.key_prefix), for the request log; never the key. */
  keyPrefix: string;
  until: number;
}

const KEY_SHAPE = /^(test|live)_[0-9A-Za-z]{20,80}$/;
const MAX_REMEMBERED = 10_000;

/**
 * Resolves API keys to callers. A verified key is cached for `cacheMs`, so the hot path needs
 * no query; a revoked key therefore keeps working in a running process for at most that long
 * (documented in the README). A key found not valid is remembered as such for good: keys are
 * random and never issued twice, and a revoked one never comes back, so a client repeating a
 * wrong key costs no query after the first (api/auth.ts limits how many it may try).
 */
export class KeyResolver {
  private cache = new Map<string, VerifiedKey>();
  private invalid = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly cacheMs = 5000,
  ) {}

  /** What this process knows of `key` without asking the database: its caller and until when, `null` for a key known not to be valid, or undefined. */
  known(key: string, now = Date.now()): VerifiedKey | null | undefined {
    if (!KEY_SHAPE.test(key)) return null;
    const hash = sha256Hex(key);
    if (this.invalid.has(hash)) return null;
    const cached = this.cache.get(hash);
    return cached && cached.until > now ? cached : undefined;
  }

  /** Asks the database, and remembers the answer. */
  async lookUp(key: string, now = Date.now()): Promise<VerifiedKey | undefined> {
    if (!KEY_SHAPE.test(key)) return undefined;
    const hash = sha256Hex(key);
    const row = await findApiKey(this.store.read, hash);
    // Found by its hash (an index lookup on a hash leaks nothing usable about the key); the
    // stored hash is still compared in constant time so the check has no early exit.
    if (!row || !timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(hash))) {
      this.cache.delete(hash);
      if (this.invalid.size >= MAX_REMEMBERED) this.invalid.delete(this.invalid.values().next().value!);
      this.invalid.add(hash);
      return undefined;
    }
    const caller: Caller = { merchantId: row.merchant_id, merchantName: row.name, mode: row.mode, settings: JSON.parse(row.settings) };
    const verified = { caller, keyPrefix: row.key_prefix, until: now + this.cacheMs };
    if (this.cache.size > MAX_REMEMBERED) this.cache.clear();
    this.cache.set(hash, verified);
    return verified;
  }
}
