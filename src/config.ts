/**
 * Typed configuration from environment variables, declared once as data (lib/settings.ts): every
 * variable with its type, default and description, here and in events/settings.ts and
 * wallet/settings.ts. The README's configuration table is generated from `settingsTable`
 * (scripts/config-table.ts; `npm test` checks it). Nothing else reads process.env.
 *
 * Over 400 lines because `settings` is one table: each of Kassa's own variables with its type,
 * default and the README's description of it, in the README's order. The settings that belong to one
 * folder already live there (events/settings.ts, wallet/settings.ts); what remains is read by the
 * process as a whole (ports, storage, keys, limits), and cut into files it would no longer read as
 * the one list the README's table is.
 */
import os from 'node:os';
import { isIP } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { compile as compileTrust } from '@fastify/proxy-addr';
import { cardBrands, type CardBrand } from './ground/card-brand.ts';
import { SCRIPT_SCHEMES, URL_SCHEME } from './lib/urls.ts';
import {
  boolean,
  commaList,
  duration,
  integer,
  invalid,
  oneOf,
  url,
  setting,
  SettingError,
  text,
  textOr,
  unknownSettings,
  value,
  type Env,
  type Setting,
} from './lib/settings.ts';
import { loadWebhookSettings, webhookVariables, type WebhookSettings } from './events/settings.ts';
import { loadWalletSettings, walletVariables, type WalletSettings } from './wallet/settings.ts';

export interface Config {
  port: number;
  host: string;
  /** Root of every customer-facing and API address Kassa hands out (payUrl, cancelUrl, …). */
  publicUrl: string;
  /** Whether PUBLIC_URL was set, or `publicUrl` is the default made from PORT (right only on the server's own machine). */
  publicUrlSet: boolean;
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
  /** How long after a payment it can be refunded, per card network (docs/decisions.md#refunds): REFUND_WINDOW, REFUND_WINDOWS. */
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
  /** How long an acquirer's answer may take before its outcome counts as unknown (ACQUIRER_TIMEOUT). */
  acquirerTimeoutMs: number;
  /**
   * How long after an authorisation was sent the recovery job settles it when its outcome is still
   * unknown (ACQUIRER_RECOVERY_AFTER): a technical cancel, or the payment left for an operator.
   */
  acquirerRecoveryAfterMs: number;
  /** How long the request log keeps an entry (REQUEST_LOG_RETENTION, docs/api.md "Request log"). */
  requestLogRetentionMs: number;
  /** How often the acquirer recovery job looks for such authorisations (ACQUIRER_RECOVERY_INTERVAL). */
  acquirerRecoveryIntervalMs: number;
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
  /** The console's sessions and sign-in lockout (CONSOLE_* variables, docs/console.md "Signing in and sessions"). */
  console: ConsoleSecurity;
  /** Variables that look meant for Kassa but are none of its settings (misspelt, or from another version): main.ts warns. */
  unknownSettings: string[];
}

/** The console's sessions and sign-in lockout, as PCI DSS v4.0 8.2.8 and 8.3.4 ask (docs/console.md "Signing in and sessions"). */
export interface ConsoleSecurity {
  /** A session unused this long ends (CONSOLE_IDLE_TIMEOUT). */
  idleTimeoutMs: number;
  /** A session ends this long after its sign-in, however used (CONSOLE_SESSION_LIFETIME). */
  sessionLifetimeMs: number;
  /** Failed sign-ins after which an account is locked (CONSOLE_LOCKOUT_ATTEMPTS). */
  lockoutAttempts: number;
  /** How long a lock lasts (CONSOLE_LOCKOUT_DURATION). */
  lockoutMs: number;
}

export interface VaultKey {
  id: string;
  key: Buffer;
}

export interface RefundWindows {
  /** For a network without its own window (ms). */
  default: number;
  byBrand: Partial<Record<CardBrand, number>>;
}

const MAX_DEFAULT_HTTP_PROCESSES = 8;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const TRUST_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function key32(name: string, raw: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new SettingError(`${name} must be 32 bytes, as 64 hex digits or base64, got ${key.length} bytes (a secret: its value is not shown)`);
  return key;
}

function vaultKey(name: string, id: string, base64: string): VaultKey {
  const idRule = "1 to 64 letters, digits, '.', '_' or '-'";
  if (!KEY_ID.test(id)) throw name === 'VAULT_KEY' ? invalid('VAULT_KEY_ID', idRule, id) : invalid(name, `a list of id:base64 pairs, each id ${idRule}`, id);
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32)
    throw new SettingError(`${name} must be 32 bytes in base64 (e.g. openssl rand -base64 32), got ${key.length} bytes (a secret: its value is not shown)`);
  return { id, key };
}

/** A 32-byte key, 64 hex digits or base64. */
const key = (d: { name: string; description: string; shownDefault?: string }): Setting<Buffer | undefined> => ({
  type: '32-byte key',
  shownDefault: 'unset',
  ...d,
  read: (raw) => (raw ? key32(d.name, raw) : undefined),
});

/** Kassa's own settings (the webhook and wallet ones live with their folders). */
export const settings = {
  port: integer(8080, { name: 'PORT', max: 65535, description: 'The HTTP port Kassa listens on' }),
  host: textOr('0.0.0.0', { name: 'HOST', description: 'Address to listen on' }),
  publicUrl: url(['http:', 'https:'], {
    name: 'PUBLIC_URL',
    shownDefault: '`http://localhost:$PORT`',
    description:
      'Root of every address Kassa hands out (`payUrl`, `cancelUrl`, API root `PUBLIC_URL/api/v1`). An `https:` one makes every answer carry `Strict-Transport-Security: max-age=31536000`',
  }),
  databaseUrl: url(['postgres:', 'postgresql:'], {
    name: 'DATABASE_URL',
    description: '`postgres://…` switches storage to PostgreSQL; unset = SQLite',
  }),
  dataDir: setting({
    name: 'DATA_DIR',
    type: 'path',
    shownDefault: '`./data`',
    description:
      'Where the SQLite database (`kassa.db`) lives; created 0700, the database files 0600 (wider permissions found at start are taken off, and the log says so once)',
    read: (raw) => path.resolve(raw || 'data'),
  }),
  keyDir: setting({
    name: 'KEY_DIR',
    type: 'path',
    shownDefault: '`./keys`',
    description:
      'Where Kassa makes the key files it needs when `SECRETS_KEY` or `VAULT_KEY` is unset (0700, files 0600). Keep it apart from `DATA_DIR`: a key file there is warned about at every start. What to back up where: [docs/operations.md](docs/operations.md)',
    read: (raw) => path.resolve(raw || 'keys'),
  }),
  secretsKey: key({
    name: 'SECRETS_KEY',
    description:
      '32 bytes (base64 or 64 hex digits) sealing the secrets the database keeps (webhook signing secrets, recorded answers) and deriving the capability tokens of `payUrl`/`cancelUrl`/`cardDataUrl`, of which only hashes are stored. Unset: `KEY_DIR/secrets-key.json`, made on first start. One key per database: a start with another key is refused. Set it, the same everywhere, on a deployment of several machines',
  }),
  logLevel: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', {
    name: 'LOG_LEVEL',
    description: 'What is logged, from the least (`fatal`) to the most (`trace`); `silent` logs nothing',
  }),
  logRequests: boolean(true, {
    name: 'LOG_REQUESTS',
    description:
      'One log line per request (method, route, status, time). The route is the matched pattern (`/pay/:token`), none for an address that matched no route: headers, bodies, query strings and path tokens are never logged',
  }),
  sqliteSynchronous: oneOf(['FULL', 'NORMAL'], 'FULL', {
    name: 'SQLITE_SYNCHRONOUS',
    description: '`FULL`: an acknowledged payment survives a power cut. `NORMAL` is faster and may lose the last commits on power loss (never on a process crash)',
  }),
  paymentExpiry: duration('PT15M', {
    name: 'PAYMENT_EXPIRY',
    description: 'Default time a payment may stay `pending` (ISO 8601 duration); per payment `details.expirationDuration`',
  }),
  refundWindow: duration('P180D', {
    name: 'REFUND_WINDOW',
    description: 'How long after a payment it can be refunded (ISO 8601 duration), for every card network without its own window',
  }),
  refundWindows: setting({
    name: 'REFUND_WINDOWS',
    type: '`brand=duration` list',
    shownDefault: 'unset',
    description: 'Per card network: `amex=P365D,visa=P120D` (brands `visa` `mastercard` `amex` `maestro` `bcmc`)',
    read: (raw) => {
      const byBrand: Partial<Record<CardBrand, number>> = {};
      for (const entry of commaList(raw)) {
        const [brand, window] = entry.split('=').map((part) => part.trim());
        if (!cardBrands.includes(brand as CardBrand) || window === undefined)
          throw invalid('REFUND_WINDOWS', `a list of brand=duration pairs (brands: ${cardBrands.join(', ')})`, entry);
        byBrand[brand as CardBrand] = duration('P180D', { name: 'REFUND_WINDOWS', description: '' }).read(window);
      }
      return byBrand;
    },
  }),
  expirySweepIntervalMs: integer(5000, {
    name: 'EXPIRY_SWEEP_INTERVAL_MS',
    description: 'How often pending payments are checked for expiry, and wallet payments cut off by a crash are resumed',
  }),
  httpProcesses: setting({
    name: 'HTTP_PROCESSES',
    type: 'integer or `auto`',
    shownDefault: `\`auto\` = one per CPU core, at most ${MAX_DEFAULT_HTTP_PROCESSES}`,
    description:
      'HTTP server processes sharing the port. Above 1, a primary process migrates, creates the demo merchant, runs the background workers and supervises the HTTP processes (one that dies is replaced within a second; SIGTERM stops them all). `1` = everything in one process',
    read: (raw) => {
      if (raw === undefined || raw === '' || raw === 'auto') return Math.min(os.availableParallelism(), MAX_DEFAULT_HTTP_PROCESSES);
      if (!/^[1-9]\d*$/.test(raw)) throw invalid('HTTP_PROCESSES', 'auto or a positive whole number', raw);
      return Number(raw);
    },
  }),
  databasePoolSize: integer(10, { name: 'DATABASE_POOL_SIZE', description: 'PostgreSQL connections per HTTP process (the primary keeps 4 for background work)', min: 1 }),
  runWorkers: boolean(true, {
    name: 'RUN_WORKERS',
    description:
      'Run background workers (expiry, resuming wallet payments cut off by a crash, settling authorisations with an unknown outcome, webhook delivery) in this Kassa instance (its primary). Set `false` on API-only instances',
  }),
  demoMerchant: boolean(true, {
    name: 'DEMO_MERCHANT',
    description: 'On an empty database, create a demo merchant with a test API key at start and print it (no live key: `kassa key rotate --mode live` makes one)',
  }),
  apiKeyCacheMs: integer(5000, {
    name: 'API_KEY_CACHE_MS',
    description: 'How long a verified API key is cached in a process; a revoked key keeps working at most this long',
  }),
  rateLimitPerSecond: integer(100, {
    name: 'RATE_LIMIT_PER_SECOND',
    description:
      "Requests per second per API key, averaged over a 2 s window (bursts up to twice this): so `RateLimit-Limit` answers the window's allowance, twice this (`200` for `100`), `RateLimit-Remaining` what is left of it and `RateLimit-Reset` the seconds until the window ends; `0` turns the limit off",
  }),
  authFailureLimit: integer(20, {
    name: 'AUTH_FAILURE_LIMIT',
    description:
      "Requests per client address and minute with an API key that is not valid, looked up side by side; past it, until the minute is over, the address's keys are looked up one at a time per process and a wrong one gets its 401 with `Retry-After`, while a valid key is served as usual (one shop's wrong key never locks out the other shops sharing its address). IPv6 clients count by /64. `0` turns the limit off",
  }),
  trustProxy: setting({
    name: 'TRUST_PROXY',
    type: 'address list',
    shownDefault: 'unset',
    description:
      'Comma-separated addresses or CIDR ranges of the reverse proxies in front of Kassa (`127.0.0.1,10.0.0.0/8`; also `loopback`, `linklocal`, `uniquelocal`), as Fastify\'s `trustProxy` takes them: a connection from one of them has its `X-Forwarded-For` believed back to the first address no trusted proxy added, which is the client for `AUTH_FAILURE_LIMIT` and the 3-D Secure `browserIP`. Unset, the connection\'s address is the client; never "everyone" or a hop count, which would let a client name its own address. Example for nginx: [docs/operations.md](docs/operations.md#behind-a-reverse-proxy)',
    // Checked by the library that applies it (Fastify's trustProxy). Named proxies only: trusting every sender (`true`, a hop
    // count) would let any client name its own address, and so escape the per-address limit.
    read: (raw) => {
      const proxies = commaList(raw);
      for (const proxy of proxies) {
        try {
          // proxy-addr also reads `1` as the address 0.0.0.1: an address here is written in full.
          if (!TRUST_NAMES.includes(proxy) && isIP(proxy.split('/')[0]!) === 0) throw new Error('not an address');
          compileTrust(proxy);
        } catch {
          throw invalid('TRUST_PROXY', 'a list of the addresses or CIDR ranges of the proxies in front of Kassa (or loopback, linklocal, uniquelocal)', proxy);
        }
      }
      return proxies;
    },
  }),
  returnUrlSchemes: setting({
    name: 'RETURN_URL_SCHEMES',
    type: 'scheme list',
    shownDefault: 'unset',
    description:
      "Comma-separated schemes a `returnUrl` may have besides `https` and `http`: your merchants' app deep links (`myshop,com.shop.app`). Schemes that run code or read local data (`javascript`, `data`, `file`, …) are refused at start",
    read: (raw) => {
      const schemes = commaList(raw).map((entry) => entry.toLowerCase().replace(/:$/, ''));
      for (const scheme of schemes) {
        if (!URL_SCHEME.test(scheme)) throw invalid('RETURN_URL_SCHEMES', "a list of URL schemes (a letter, then letters, digits, '+', '-' or '.')", scheme);
        if (SCRIPT_SCHEMES.includes(scheme))
          throw invalid(
            'RETURN_URL_SCHEMES',
            `a list of URL schemes other than ${SCRIPT_SCHEMES.join(', ')} (a browser sent there runs code or reads local data)`,
            scheme,
          );
      }
      return schemes;
    },
  }),
  acquirerTimeout: duration('PT30S', {
    name: 'ACQUIRER_TIMEOUT',
    description:
      "How long an acquirer's answer may take; past it the outcome is unknown (`manualintervention` for an authorisation). Which acquirer a merchant uses is set per merchant and mode with `kassa acquirer set` ([docs/acquirers.md](docs/acquirers.md)); without a connection test keys use the built-in simulator and live payments are still validated and created (docs/api.md#authentication), but their page says card payments are unavailable (503, no card form)",
  }),
  acquirerRecoveryAfter: duration('PT5M', {
    name: 'ACQUIRER_RECOVERY_AFTER',
    description:
      "How long after it was sent an authorisation whose outcome is unknown (no answer in time, or Kassa killed before recording the answer) waits for the acquirer's notification. Then the background job asks the acquirer to cancel it by Kassa's reference (Adyen `/technicalCancel`) and the payment becomes `failed`/`processing_error`; with an acquirer that cannot (the test simulator) the payment is left `manualintervention` for an operator ([docs/acquirers.md](docs/acquirers.md#unknown-outcomes)). Also the lease of a capture, reversal or refund asked of the acquirer: past it, one its request never finished is asked again with the same key ([docs/acquirers.md](docs/acquirers.md#claims-and-leases))",
  }),
  requestLogRetention: duration('P14D', {
    name: 'REQUEST_LOG_RETENTION',
    description:
      "How long the request log keeps a merchant API request made with an API key (time, mode, key prefix, method, route pattern, status, duration, request id, an error's title; never a body, query string or key); the hourly housekeeping then deletes it ([docs/api.md](docs/api.md#request-log))",
  }),
  acquirerRecoveryInterval: duration('PT30S', {
    name: 'ACQUIRER_RECOVERY_INTERVAL',
    description:
      'How often the background job looks for authorisations, captures, reversals and refunds past `ACQUIRER_RECOVERY_AFTER`; a technical cancel or a reversal with no answer is tried again after this',
  }),
  cardSealKey: key({
    name: 'CARD_SEAL_KEY',
    shownDefault: 'random per start',
    description:
      '32 bytes (64 hex digits or base64) sealing card data while the customer is at a 3-D Secure step. Unset, the primary draws one and gives it to all its HTTP processes; set the same key on every Kassa instance of a deployment with several machines',
  }),
  vaultKey: setting({
    name: 'VAULT_KEY',
    type: '32-byte key (base64)',
    shownDefault: 'unset',
    description:
      '32 bytes in base64 (`openssl rand -base64 32`) encrypting the card numbers in the vault (AES-256-GCM). Unset on SQLite: Kassa creates `KEY_DIR/vault-key.json` (mode 0600) on first start and reuses it, so stored cards survive restarts and all HTTP processes share it; back it up, apart from the database. A `vault-key.json` an earlier version made in `DATA_DIR` is still read from there until moved (docs/operations.md). Unset with `DATABASE_URL`: vault enrollment, vault payments and `storeInVault` are refused with 503 (a key per process would make cards unreadable elsewhere)',
    read: (raw) => raw || undefined,
  }),
  vaultKeyId: textOr('vault-1', { name: 'VAULT_KEY_ID', description: 'Name of `VAULT_KEY`, stored with every card it encrypts; give a new key a new id' }),
  vaultOldKeys: setting({
    name: 'VAULT_OLD_KEYS',
    type: '`id:base64` list',
    shownDefault: 'unset',
    description: '`id:base64,…`: earlier vault keys, still used to decrypt the cards they encrypted (key rotation). A vault key file is always kept for decryption',
    read: (raw) =>
      commaList(raw).map((entry) => {
        const colon = entry.indexOf(':');
        if (colon < 1) throw new SettingError('VAULT_OLD_KEYS must list id:base64 pairs separated by commas (secrets: the value is not shown)');
        return vaultKey('VAULT_OLD_KEYS', entry.slice(0, colon).trim(), entry.slice(colon + 1).trim());
      }),
  }),
  metricsToken: text({
    name: 'METRICS_TOKEN',
    description:
      'Turns on `GET /metrics` (Prometheus text, all HTTP processes added up), answered only with `Authorization: Bearer <this token>`. Unset, there is no `/metrics`. Series and scrape config: [docs/operations.md](docs/operations.md#metrics)',
  }),
  consoleIdleTimeout: duration('PT15M', {
    name: 'CONSOLE_IDLE_TIMEOUT',
    description:
      'A console session unused this long ends: the next request goes to sign-in ([docs/console.md](docs/console.md#signing-in-and-sessions)). Its last use is recorded at most once a minute, so a session may end up to a minute sooner',
  }),
  consoleSessionLifetime: duration('PT12H', {
    name: 'CONSOLE_SESSION_LIFETIME',
    description: 'A console session ends this long after its sign-in, however much it is used',
  }),
  consoleLockoutAttempts: integer(10, {
    name: 'CONSOLE_LOCKOUT_ATTEMPTS',
    min: 1,
    description:
      'Failed console sign-ins for one e-mail address after which it is locked for `CONSOLE_LOCKOUT_DURATION`: every sign-in with it, the right password too, is then answered `429` like any other (an address no account has is locked alike, so the answer never tells whether an account exists). The failures are counted over `CONSOLE_LOCKOUT_DURATION`; a successful sign-in clears them',
  }),
  consoleLockoutDuration: duration('PT30M', {
    name: 'CONSOLE_LOCKOUT_DURATION',
    description: 'How long a console account stays locked after `CONSOLE_LOCKOUT_ATTEMPTS` failed sign-ins, from the last of them',
  }),
  redisUrl: url(['redis:', 'rediss:'], {
    name: 'REDIS_URL',
    description:
      '`redis://…`: rate-limit counters (per key and per client address) shared by all Kassa processes. Without it each HTTP process counts on its own, so a key can reach up to `HTTP_PROCESSES` × the limit. A Redis outage skips the limits rather than refusing payments',
  }),
};

/** Every variable Kassa reads, in the README's order. */
export const allSettings: readonly Setting<unknown>[] = [...Object.values(settings), ...webhookVariables, ...walletVariables];

/** Prefixes of Kassa's own variables: an unknown one with such a prefix is warned about. */
const FAMILIES = [
  'KASSA_',
  'WEBHOOK_',
  'WALLET_',
  'VAULT_',
  'SQLITE_',
  'REFUND_',
  'PAYMENT_',
  'METRICS_',
  'ACQUIRER_',
  'HTTP_PROCESS',
  'DEMO_',
  'CARD_SEAL',
  'REQUEST_LOG',
  'CONSOLE_',
];

export function loadConfig(env: Env = process.env): Config {
  const read = <T>(definition: Setting<T>) => value(env, definition);
  const port = read(settings.port);
  const publicUrl = (read(settings.publicUrl) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const vaultKeyBase64 = read(settings.vaultKey);
  return {
    port,
    host: read(settings.host),
    publicUrl,
    publicUrlSet: read(settings.publicUrl) !== undefined,
    databaseUrl: read(settings.databaseUrl),
    dataDir: read(settings.dataDir),
    keyDir: read(settings.keyDir),
    secretsKey: read(settings.secretsKey),
    logLevel: read(settings.logLevel),
    logRequests: read(settings.logRequests),
    sqliteSynchronous: read(settings.sqliteSynchronous),
    paymentExpiry: env.PAYMENT_EXPIRY || 'PT15M',
    paymentExpiryMs: read(settings.paymentExpiry),
    refundWindows: { default: read(settings.refundWindow), byBrand: read(settings.refundWindows) },
    expirySweepIntervalMs: read(settings.expirySweepIntervalMs),
    runWorkers: read(settings.runWorkers),
    demoMerchant: read(settings.demoMerchant),
    apiKeyCacheMs: read(settings.apiKeyCacheMs),
    rateLimitPerSecond: read(settings.rateLimitPerSecond),
    authFailureLimit: read(settings.authFailureLimit),
    redisUrl: read(settings.redisUrl),
    metricsToken: read(settings.metricsToken),
    trustProxy: read(settings.trustProxy),
    returnUrlSchemes: read(settings.returnUrlSchemes),
    webhooks: loadWebhookSettings(env),
    wallet: loadWalletSettings(env),
    acquirerTimeoutMs: read(settings.acquirerTimeout),
    acquirerRecoveryAfterMs: read(settings.acquirerRecoveryAfter),
    acquirerRecoveryIntervalMs: read(settings.acquirerRecoveryInterval),
    requestLogRetentionMs: read(settings.requestLogRetention),
    cardSealKey: read(settings.cardSealKey) ?? randomBytes(32),
    vaultKey: vaultKeyBase64 ? vaultKey('VAULT_KEY', read(settings.vaultKeyId), vaultKeyBase64) : undefined,
    vaultOldKeys: read(settings.vaultOldKeys),
    httpProcesses: read(settings.httpProcesses),
    databasePoolSize: read(settings.databasePoolSize),
    console: {
      idleTimeoutMs: read(settings.consoleIdleTimeout),
      sessionLifetimeMs: read(settings.consoleSessionLifetime),
      lockoutAttempts: read(settings.consoleLockoutAttempts),
      lockoutMs: read(settings.consoleLockoutDuration),
    },
    unknownSettings: unknownSettings(
      env,
      allSettings.map((definition) => definition.name),
      FAMILIES,
    ),
  };
}

/** The README's configuration table (scripts/config-table.ts writes it, test/unit/config.test.ts checks it). */
export function settingsTable(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    '| Variable | Type | Default | Meaning |',
    '|---|---|---|---|',
    ...allSettings.map((d) => `| \`${d.name}\` | ${cell(d.type)} | ${d.shownDefault} | ${cell(d.description)} |`),
  ].join('\n');
}
