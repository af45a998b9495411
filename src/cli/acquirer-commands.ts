/**
 * `kassa acquirer …` (docs/acquirers.md): a merchant's acquirer connection per mode. The
 * credentials are read as one JSON object from standard input, never from the command line
 * (where process listings and shell histories keep them), and never printed. Registered by kassa.ts.
 */
import { Command, InvalidArgumentError } from 'commander';
import { text } from 'node:stream/consumers';
import { print, withStore, withStoreForReading } from './store.ts';
import { setAcquirerConnection, showAcquirerConnections } from '../acquirer/connections.ts';
import type { Mode } from '../store/schema.ts';
import type { AcquirerConnection } from '../store/acquirer-connections.ts';

interface ConnectionOptions {
  merchant: string;
  mode: Mode;
  connector: string;
  endpoint: string;
  checkoutEndpoint?: string;
  disputesEndpoint?: string;
  merchantAccount: string;
  json?: boolean;
}

/** A connection in one line: the connector, its API roots, the account. */
const describe = (c: Omit<AcquirerConnection, 'secrets'>) =>
  [`${c.connector} at ${c.endpoint}`, ...Object.entries(c.endpoints).map(([api, root]) => `${api} at ${root}`), `account ${c.account}`].join(', ');

export function registerAcquirerCommands(program: Command, parseMode: (value: string) => Mode): void {
  const acquirer = program.command('acquirer').description("manage merchants' acquirer connections");
  acquirer
    .command('set')
    .description('connect a merchant to an acquirer for one mode; the credentials are read as JSON from standard input')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--mode <mode>', 'test or live', parseMode)
    .requiredOption('--connector <name>', 'the connector: adyen')
    .requiredOption('--endpoint <url>', "the acquirer's API base URL")
    .requiredOption('--merchant-account <name>', "the merchant's account at the acquirer")
    .option('--checkout-endpoint <url>', "Adyen: the Checkout API's base URL, for the methods paid on a page elsewhere (iDEAL, PayPal, Klarna, bank transfer)")
    .option('--disputes-endpoint <url>', "Adyen: the Disputes API's base URL, to accept or defend a chargeback")
    .option('--json', 'print exactly one JSON object')
    .action((options: ConnectionOptions) =>
      withStore(async (store) => {
        if (process.stdin.isTTY) throw new InvalidArgumentError('pipe the credentials in as JSON, e.g. {"apiKey": "…", "hmacKey": "…"}');
        const shown = await setAcquirerConnection(
          store,
          {
            merchantId: options.merchant,
            mode: options.mode,
            connector: options.connector,
            endpoint: options.endpoint,
            endpoints: { checkout: options.checkoutEndpoint, disputes: options.disputesEndpoint },
            account: options.merchantAccount,
            secretsJson: await text(process.stdin),
          },
          Date.now(),
        );
        print(options.json ? JSON.stringify(shown) : `merchant ${shown.merchantId} ${shown.mode}: ${describe(shown)}`);
      }),
    );
  acquirer
    .command('show')
    .description("show a merchant's acquirer connections (never their credentials)")
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--json', 'print exactly one JSON array')
    .action(({ merchant, json }: { merchant: string; json?: boolean }) =>
      withStoreForReading(async (store) => {
        const connections = await showAcquirerConnections(store, merchant);
        if (json) return print(JSON.stringify(connections));
        const lines = connections.map((c) => `${c.mode}: ${describe(c)}, set ${new Date(c.updated).toISOString()}`);
        print(lines.length ? lines.join('\n') : `merchant ${merchant}: no connection (test mode uses the simulator; live payments are refused)`);
      }),
    );
}
