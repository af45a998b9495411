/**
 * The admin CLI (`kassa …`). Works on the same database as the server: the SQLite
 * file under DATA_DIR, or DATABASE_URL. Secrets are printed once, never logged.
 */
import fs from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../config.ts';
import { databaseCreation, print, recordCommand, withStore, withStoreForReading } from './store.ts';
import {
  changePaymentMethods,
  createMerchant,
  merchantOverviews,
  merchantSettings,
  rotateApiKey,
  setCardBrands,
  setVaultPaymentPath,
  vaultPaymentPaths,
} from '../merchants/merchants.ts';
import type { Mode } from '../store/schema.ts';
import { registerWebhookCommands } from './webhook-commands.ts';
import { registerAcquirerCommands } from './acquirer-commands.ts';
import { registerOperatorCommands } from './operator-commands.ts';
import { registerRequestCommands } from './request-commands.ts';
import { registerAuditCommands } from './audit-commands.ts';
import { cardBrands, type CardBrand } from '../ground/card-brand.ts';
import { paymentMethods } from '../ground/payment-method.ts';
import { findCurrency, parseAmount } from '../ground/amount.ts';
import { testWalletToken } from '../wallet/test-sheet.ts';
import { failureCodes, type FailureCode } from '../ground/states.ts';
import { Problem } from '../ground/problem.ts';
import { buildPorts } from '../payments/ports.ts';
import { serializePayment } from '../payments/serialize.ts';
import { run } from '../payments/runner/run.ts';
import { resolve } from '../payments/operations/resolve.ts';

const parseMode = (value: string): Mode => {
  if (value !== 'test' && value !== 'live') throw new InvalidArgumentError('must be test or live');
  return value;
};

/** Kassa's version, from package.json (two folders up from src/cli/ and from dist/cli/ alike). */
const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('kassa')
  .description('Kassa administration')
  .version(version, '-V, --version', "print Kassa's version")
  .option('--create', 'make the database (DATA_DIR or DATABASE_URL) when there is none; without it a command stops there')
  .hook('preAction', (root, command) => {
    databaseCreation.allowed = root.opts<{ create?: boolean }>().create === true;
    recordCommand(command);
  })
  .showHelpAfterError();

program
  .command('migrate')
  .description('apply database migrations')
  .action(() =>
    withStore(
      async (store) => {
        const applied = await store.migrate();
        print(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      },
      { migrate: false, create: true },
    ),
  );

/** `a, b,c` as given on the command line: the names, without blanks. */
const commaList = (value: string): string[] =>
  value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');

const merchant = program.command('merchant').description('manage merchants');
merchant
  .command('create')
  .description('create a merchant and print its test and live API keys (shown once)')
  .requiredOption('--name <name>', 'merchant name')
  .option('--json', 'print exactly one JSON object')
  .action(({ name, json }: { name: string; json?: boolean }) =>
    withStore(async (store) => {
      if (!name.trim()) throw new InvalidArgumentError('--name must not be empty');
      const created = await createMerchant(store, name.trim());
      print(
        json
          ? JSON.stringify(created)
          : `merchant ${created.merchantId} (${name})\n  test API key: ${created.testApiKey}\n  live API key: ${created.liveApiKey}\nStore the keys now: Kassa keeps only their hashes.`,
      );
    }),
  );
merchant
  .command('list')
  .description('list merchants with the prefixes of their active keys')
  .option('--json', 'print JSON')
  .action(({ json }: { json?: boolean }) =>
    withStoreForReading(async (store) => {
      const list = (await merchantOverviews(store.read)).map((m) => ({
        merchantId: m.id,
        name: m.name,
        created: new Date(m.created).toISOString(),
        keys: Object.fromEntries(Object.entries(m.keyPrefixes).map(([mode, prefix]) => [mode, `${prefix}…`])) as Record<string, string>,
      }));
      if (json) return print(JSON.stringify(list));
      if (list.length === 0) return print('no merchants');
      for (const m of list) print(`${m.merchantId}  ${m.name}  created ${m.created}  test ${m.keys.test ?? '-'}  live ${m.keys.live ?? '-'}`);
    }),
  );

merchant
  .command('vault-path')
  .description("set how the merchant's customers pay with a stored card: direct (no card form) or confirm (masked card, CVC asked; default)")
  .requiredOption('--merchant <id>', 'merchant id')
  .requiredOption('--path <path>', vaultPaymentPaths.join(' or '))
  .action(({ merchant: merchantId, path }: { merchant: string; path: string }) =>
    withStore(async (store) => {
      await setVaultPaymentPath(store, merchantId, path);
      print(`vault payment path of ${merchantId}: ${path}`);
    }),
  );

merchant
  .command('card-brands')
  .description('set the card brands the merchant accepts (GET /method lists them; a card of another brand is refused)')
  .requiredOption('--merchant <id>', 'merchant id')
  .requiredOption('--brands <list>', `comma-separated, at least one of ${cardBrands.join(', ')}`)
  .action(({ merchant: merchantId, brands }: { merchant: string; brands: string }) =>
    withStore(async (store) => {
      const settings = await setCardBrands(store, merchantId, commaList(brands));
      print(`card brands of ${merchantId}: ${settings.cardBrands.join(', ')}`);
    }),
  );

merchant
  .command('methods')
  .description(
    'enable or disable payment methods of the merchant (POST /payment refuses the others, GET /method lists the enabled ones); without --enable or --disable, print the enabled ones',
  )
  .requiredOption('--merchant <id>', 'merchant id')
  .option('--enable <list>', `comma-separated, among ${paymentMethods.join(', ')}`, commaList)
  .option('--disable <list>', 'comma-separated', commaList)
  .option('--json', 'print exactly one JSON object')
  .action(({ merchant: merchantId, enable, disable, json }: { merchant: string; enable?: string[]; disable?: string[]; json?: boolean }) =>
    // Without --enable or --disable it only reads: no audit entry.
    (enable === undefined && disable === undefined ? withStoreForReading : withStore)(async (store) => {
      const { methods } =
        enable === undefined && disable === undefined ? await merchantSettings(store, merchantId) : await changePaymentMethods(store, merchantId, { enable, disable });
      print(json ? JSON.stringify({ merchantId, methods }) : `payment methods of ${merchantId}: ${methods.length > 0 ? methods.join(', ') : 'none'}`);
    }),
  );

const key = program.command('key').description('manage API keys');
key
  .command('rotate')
  .description('revoke the active key of a mode, if any, and print a new one (shown once); how the demo merchant gets a live key')
  .requiredOption('--merchant <id>', 'merchant id')
  .requiredOption('--mode <mode>', 'test or live', parseMode)
  .option('--json', 'print JSON')
  .action(({ merchant: merchantId, mode, json }: { merchant: string; mode: Mode; json?: boolean }) =>
    withStore(async (store) => {
      const apiKey = await rotateApiKey(store, merchantId, mode);
      print(json ? JSON.stringify({ merchantId, mode, apiKey }) : `new ${mode} API key for ${merchantId}: ${apiKey}\nThe previous ${mode} key is revoked.`);
    }),
  );

registerWebhookCommands(program);
registerAcquirerCommands(program, parseMode);
registerOperatorCommands(program);
registerRequestCommands(program, parseMode);
registerAuditCommands(program);

program
  .command('payment')
  .description('act on payments as the operator')
  .command('resolve')
  .description(
    'resolve a payment held in manualintervention (or a reversal held for an operator: success = reversed, failed = authorised again) once the acquirer told its real outcome (the merchant gets the usual webhook)',
  )
  .requiredOption('--reference <reference>', 'the Kassa reference of the payment')
  .requiredOption('--outcome <outcome>', 'success or failed')
  .option('--failure-code <code>', `with --outcome failed: ${failureCodes.join(', ')} (default rejected)`)
  .option('--json', 'print the payment object as JSON')
  .action(({ reference, outcome, failureCode, json }: { reference: string; outcome: 'success' | 'failed'; failureCode?: FailureCode; json?: boolean }) =>
    withStore(async (store) => {
      const config = loadConfig();
      const ctx = { ports: buildPorts(config, store), caller: undefined, now: Date.now(), log: { error: () => {} } };
      try {
        const row = await run(resolve, { reference, outcome, failureCode }, ctx);
        print(json ? JSON.stringify(serializePayment(row, ctx.ports.links)) : `${reference} is now ${row.status}${row.failure_code ? `/${row.failure_code}` : ''}`);
      } catch (error) {
        if (error instanceof Problem) throw new Error(error.errors?.map((e) => `${e.field} ${e.message}`).join('; ') || error.detail);
        throw error;
      }
    }),
  );

program
  .command('wallet')
  .description('wallet payments')
  .command('test-token')
  .description("print a test-mode wallet token (EC_v1, signed by Kassa's test PKI) for walletPayEncryptedToken or a cardDataUrl")
  .requiredOption('--amount <amount>', 'the payment amount, e.g. 10.00')
  .requiredOption('--currency <code>', 'ISO 4217 code, e.g. EUR')
  .option('--brand <brand>', `card brand: ${cardBrands.join(', ')}`, 'visa')
  .action(async ({ amount, currency: code, brand }: { amount: string; currency: string; brand: string }) => {
    const currency = findCurrency(code);
    if (!currency) throw new InvalidArgumentError(`--currency ${code} is not an ISO 4217 code`);
    const parsed = parseAmount(amount, currency);
    if (!parsed.ok) throw new InvalidArgumentError(`--amount ${amount}: ${parsed.message}`);
    if (!cardBrands.includes(brand as CardBrand)) throw new InvalidArgumentError(`--brand must be one of ${cardBrands.join(', ')}`);
    print(JSON.stringify(await testWalletToken({ brand: brand as CardBrand, amountMinor: parsed.minor, currency })));
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`kassa: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
