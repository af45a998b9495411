/**
 * Typed configuration from environment variables. Every setting is documented in
 * the README; nothing else reads process.env.
 */
import os from 'node:os';
import { isIP } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { compile as compileTrust } from '@fastify/proxy-addr';
import { parseIsoDuration } from './lib/duration.ts';
import { cardBrands, type CardBrand } from './ground/card-brand.ts';
import { SCRIPT_SCHEMES, URL_SCHEME } from './lib/urls.ts';
import { flag } from './lib/flag.ts';
import { loadWebhookSettings, type WebhookSettings } from './events/settings.ts';
import { loadWalletSettings, type WalletSettings } from './wallet/settings.ts';

export interface Config {
  port: number;
  host: string;
  /** Root of every customer-facing and API address Kassa hands out (payUrl, cancelUrl, …). */
  publicUrl: string;
  /** `postgres://…` switches storage to PostgreSQL; unset = SQLite at `$DATA_DIR/kassa.db`. */
  databaseUrl?: string;
  dataDir: string;
  /** Where Kassa keeps the key files it makes (secrets key, vault key): KEY_DIR, default `./keys`, never inside DATA_DIR by default. */
  keyDir: string;
  /**
   * 32-byte key sealing the secrets the database keeps (webhook signing secrets, …) and deriving the
   * capability tokens (SECRETS_KEY, base64 or hex). Unset: a key file in KEY_DIR (store/secrets.ts).
   */
  secretsKey?: Buffer;
  logLevel: string;
  /** Log one line per HTTP request (method, route, status, time). */
  logRequests: boolean;
  /** FULL (default): an acknowledged payment survives a power cut. NORMAL trades that for speed. */
  sqliteSynchronous: 'FULL' | 'NORMAL';
  /** Default time a pending payment may stay pending before it expires (ISO 8601 duration). */
  paymentExpiry: string;
  paymentExpiryMs: number;
  /** How long after a payment it can be refunded, per card network (DESIGN §3 "Refunds"): REFUND_WINDOW, REFUND_WINDOWS. */
  refundWindows: RefundWindows;
  /** How often the background sweeper looks for expired payments. */
  expirySweepIntervalMs: number;
  /** Run the background workers (expiry sweeper, …) in this process. */
  runWorkers: boolean;
  /** Create a demo merchant on first start when the database has none. */
  demoMerchant: boolean;
  /** How long a resolved API key is cached; a revoked key keeps working in a running process at most this long. */
  apiKeyCacheMs: number;
  /** Average requests per second per API key (bursts up to twice that); 0 turns the limit off. */
  rateLimitPerSecond: number;
  /** Requests per client address and minute whose API key turns out not valid; then 429 until the minute is over. 0 turns the limit off. */
  authFailureLimit: number;
  /** Shares rate-limit counters between Kassa processes. */
  redisUrl?: string;
  /** The bearer token `GET /metrics` asks for (METRICS_TOKEN); unset = no /metrics. */
  metricsToken?: string;
  /**
   * The proxies in front of Kassa whose X-Forwarded-For names the client (TRUST_PROXY): their
   * addresses or CIDR ranges. Empty: the connection's own address is the client.
   */
  trustProxy: string[];
  /** Schemes a returnUrl may have besides http and https (RETURN_URL_SCHEMES): the merchants' app deep links, lower case, no colon. */
  returnUrlSchemes: string[];
  /** Live acquirer connector (ACQUIRER_CONNECTOR); unset = live card payments are refused. Test mode always uses the simulator. */
  acquirerConnector?: string;
  /** 32-byte key sealing card data across a 3-D Secure step (CARD_SEAL_KEY, hex or base64); random per start when unset (main.ts shares it with the HTTP processes). */
  cardSealKey: Buffer;
  /**
   * Vault key (VAULT_KEY, base64 of 32 bytes) and its id (VAULT_KEY_ID) for the card numbers in the vault.
   * Unset: on SQLite a key file in KEY_DIR (vault/keys.ts); with DATABASE_URL the vault is unavailable (503).
   */
  vaultKey?: VaultKey;
  /** Earlier vault keys (VAULT_OLD_KEYS, `id:base64,…`), still used to decrypt cards stored before a rotation. */
  vaultOldKeys: VaultKey[];
  /**
   * HTTP server processes sharing the port (HTTP_PROCESSES; default one per CPU core, at most 8).
   * Above 1, a primary process migrates, runs the background workers and supervises them.
   */
  httpProcesses: number;
  /** PostgreSQL connections per HTTP process (DATABASE_POOL_SIZE, default 10). */
  databasePoolSize: number;
  /** Webhook delivery: timeout (10 s), concurrency, lease, retry schedule, … (WEBHOOK_* variables, see events/settings.ts). */
  webhooks: WebhookSettings;
  /** Live wallet keys and merchant identity, token freshness (WALLET_* variables, see wallet/settings.ts). */
  wallet: WalletSettings;
}

export interface VaultKey {
  id: string;
  key: Buffer;
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080);
  const paymentExpiry = env.PAYMENT_EXPIRY || 'PT15M';
  const paymentExpiryMs = parseIsoDuration(paymentExpiry);
  if (paymentExpiryMs === undefined || paymentExpiryMs <= 0) {
    throw new Error(`PAYMENT_EXPIRY must be a positive ISO 8601 duration such as PT15M, got "${paymentExpiry}"`);
  }
  const synchronous = (env.SQLITE_SYNCHRONOUS || 'FULL').toUpperCase();
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') {
    throw new Error(`SQLITE_SYNCHRONOUS must be FULL or NORMAL, got "${env.SQLITE_SYNCHRONOUS}"`);
  }
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    throw new Error(`PUBLIC_URL must be an absolute URL, got "${env.PUBLIC_URL}"`);
  }
  return {
    port,
    host: env.HOST || '0.0.0.0',
    publicUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.DATA_DIR || 'data'),
    keyDir: path.resolve(env.KEY_DIR || 'keys'),
    secretsKey: env.SECRETS_KEY ? key32('SECRETS_KEY', env.SECRETS_KEY) : undefined,
    logLevel: env.LOG_LEVEL || 'info',
    logRequests: flag(env, 'LOG_REQUESTS', true),
    sqliteSynchronous: synchronous,
    paymentExpiry,
    paymentExpiryMs,
    refundWindows: refundWindows(env),
    expirySweepIntervalMs: integer(env, 'EXPIRY_SWEEP_INTERVAL_MS', 5000),
    runWorkers: flag(env, 'RUN_WORKERS', true),
    demoMerchant: flag(env, 'DEMO_MERCHANT', true),
    apiKeyCacheMs: integer(env, 'API_KEY_CACHE_MS', 5000),
    rateLimitPerSecond: integer(env, 'RATE_LIMIT_PER_SECOND', 100),
    authFailureLimit: integer(env, 'AUTH_FAILURE_LIMIT', 20),
    redisUrl: env.REDIS_URL || undefined,
    metricsToken: env.METRICS_TOKEN || undefined,
    trustProxy: trustProxy(env.TRUST_PROXY),
    returnUrlSchemes: returnUrlSchemes(env.RETURN_URL_SCHEMES),
    webhooks: loadWebhookSettings(env),
    wallet: loadWalletSettings(env),
    acquirerConnector: env.ACQUIRER_CONNECTOR || undefined,
    cardSealKey: env.CARD_SEAL_KEY ? key32('CARD_SEAL_KEY', env.CARD_SEAL_KEY) : randomBytes(32),
    vaultKey: env.VAULT_KEY ? vaultKey('VAULT_KEY', env.VAULT_KEY_ID || 'vault-1', env.VAULT_KEY) : undefined,
    vaultOldKeys: (env.VAULT_OLD_KEYS || '')
      .split(',')
      .filter(Boolean)
      .map((entry) => {
        const colon = entry.indexOf(':');
        if (colon < 1) throw new Error('VAULT_OLD_KEYS must list id:base64 pairs separated by commas');
        return vaultKey('VAULT_OLD_KEYS', entry.slice(0, colon).trim(), entry.slice(colon + 1).trim());
      }),
    httpProcesses:
      env.HTTP_PROCESSES === undefined || env.HTTP_PROCESSES === '' || env.HTTP_PROCESSES === 'auto'
        ? Math.min(os.availableParallelism(), MAX_DEFAULT_HTTP_PROCESSES)
        : positive(env, 'HTTP_PROCESSES'),
    databasePoolSize: env.DATABASE_POOL_SIZE ? positive(env, 'DATABASE_POOL_SIZE') : 10,
  };
}

export interface RefundWindows {
  /** For a network without its own window (ms). */
  default: number;
  byBrand: Partial<Record<CardBrand, number>>;
}

/** `REFUND_WINDOW=P180D` for every network, `REFUND_WINDOWS=amex=P365D,visa=P120D` for some. */
function refundWindows(env: Env): RefundWindows {
  const duration = (name: string, raw: string) => {
    const ms = parseIsoDuration(raw);
    if (ms === undefined || ms <= 0) throw new Error(`${name} must be a positive ISO 8601 duration such as P180D, got "${raw}"`);
    return ms;
  };
  const byBrand: Partial<Record<CardBrand, number>> = {};
  for (const entry of (env.REFUND_WINDOWS || '').split(',').filter(Boolean)) {
    const [brand, raw] = entry.split('=').map((part) => part.trim());
    if (!cardBrands.includes(brand as CardBrand) || raw === undefined)
      throw new Error(`REFUND_WINDOWS must list brand=duration pairs (brands: ${cardBrands.join(', ')}), got "${entry}"`);
    byBrand[brand as CardBrand] = duration('REFUND_WINDOWS', raw);
  }
  return { default: duration('REFUND_WINDOW', env.REFUND_WINDOW || 'P180D'), byBrand };
}

function key32(name: string, raw: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be 32 bytes, as 64 hex digits or base64`);
  return key;
}

const commaList = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/**
 * Checked by the library that applies it (Fastify's trustProxy): addresses, CIDR ranges and the
 * names `loopback`, `linklocal`, `uniquelocal`. Named proxies only: trusting every sender (`true`,
 * a hop count) would let any client name its own address, and so escape the per-address limit.
 */
const TRUST_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function trustProxy(raw: string | undefined): string[] {
  const proxies = commaList(raw);
  for (const proxy of proxies) {
    try {
      // proxy-addr also reads `1` as the address 0.0.0.1: an address here is written in full.
      if (!TRUST_NAMES.includes(proxy) && isIP(proxy.split('/')[0]!) === 0) throw new Error('not an address');
      compileTrust(proxy);
    } catch {
      throw new Error(`TRUST_PROXY lists the addresses or CIDR ranges of the proxies in front of Kassa (or loopback, linklocal, uniquelocal), got "${proxy}"`);
    }
  }
  return proxies;
}

function returnUrlSchemes(raw: string | undefined): string[] {
  const schemes = commaList(raw).map((entry) => entry.toLowerCase().replace(/:$/, ''));
  for (const scheme of schemes) {
    if (!URL_SCHEME.test(scheme)) throw new Error(`RETURN_URL_SCHEMES: "${scheme}" is not a URL scheme (a letter, then letters, digits, '+', '-' or '.')`);
    if (SCRIPT_SCHEMES.includes(scheme)) throw new Error(`RETURN_URL_SCHEMES must not list ${scheme}: a browser sent there runs code or reads local data`);
  }
  return schemes;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

function vaultKey(name: string, id: string, base64: string): VaultKey {
  if (!KEY_ID.test(id)) throw new Error(`${name}: a vault key id is 1 to 64 letters, digits, '.', '_' or '-', got "${id}"`);
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be 32 bytes in base64 (e.g. openssl rand -base64 32)`);
  return { id, key };
}

const MAX_DEFAULT_HTTP_PROCESSES = 8;

function positive(env: Env, name: string): number {
  const value = integer(env, name, 0);
  if (value < 1) throw new Error(`${name} must be at least 1, got "${env[name]}"`);
  return value;
}

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}
