/**
 * `kassa operator …` (docs/console.md): console accounts. Without `--merchant` an account is a
 * platform operator (every merchant); with it, that merchant's user. Registered by kassa.ts.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { text } from 'node:stream/consumers';
import { print, withStore, withStoreForReading } from './store.ts';
import { loadConfig } from '../config.ts';
import { createOperator, disableAccount, operatorsOf } from '../operators/accounts.ts';
import { issueSetPasswordLink } from '../operators/password-changes.ts';

/** The password piped in, without the newline `echo` or a terminal adds. */
const passwordFromStdin = async () => (await text(process.stdin)).replace(/\r?\n$/, '');

/**
 * Where a printed link starts: `--public-url`, else the PUBLIC_URL setting as the server reads it.
 * Unset, the server's default (`http://localhost:$PORT`) is only right on the server's own machine
 * with its own PORT, so the command says so beside the link.
 */
function linkRoot(option: string | undefined, printsLink: boolean): string {
  if (option !== undefined) {
    try {
      return new URL(option).toString().replace(/\/+$/, '');
    } catch {
      throw new InvalidArgumentError(`--public-url ${option} is not a URL`);
    }
  }
  const { publicUrl, publicUrlSet } = loadConfig();
  if (printsLink && !publicUrlSet) {
    process.stderr.write(
      `kassa: PUBLIC_URL is not set: the link starts with ${publicUrl}, the server's default; set PUBLIC_URL as the server has it, or pass --public-url\n`,
    );
  }
  return publicUrl;
}

export function registerOperatorCommands(program: Command): void {
  const operator = program.command('operator').description('manage console accounts (PUBLIC_URL/dashboard)');

  operator
    .command('create')
    .description('create a console account; prints a one-time set-password link unless --password-stdin')
    .requiredOption('--email <email>', 'the e-mail address the person signs in with')
    .option('--merchant <id>', 'limit the account to this merchant (without: a platform operator, every merchant)')
    .option('--password-stdin', 'read the password from standard input')
    .option('--public-url <url>', "the server's PUBLIC_URL, which the set-password link starts with (default: the PUBLIC_URL setting)")
    .option('--json', 'print exactly one JSON object')
    .action(({ email, merchant, passwordStdin, publicUrl, json }: { email: string; merchant?: string; passwordStdin?: boolean; publicUrl?: string; json?: boolean }) =>
      withStore(async (store) => {
        const password = passwordStdin ? await passwordFromStdin() : undefined;
        const created = await createOperator(store, { email, merchantId: merchant, password, publicUrl: linkRoot(publicUrl, !password) });
        if (json) return print(JSON.stringify(created));
        print(`account ${created.operatorId} (${created.email}) ${merchant ? `for merchant ${merchant}` : 'platform operator: every merchant'}`);
        if (created.setPasswordUrl) print(`  set-password link (one use, 7 days): ${created.setPasswordUrl}`);
      }),
    );

  operator
    .command('list')
    .description('list console accounts')
    .option('--json', 'print JSON')
    .action(({ json }: { json?: boolean }) =>
      withStoreForReading(async (store) => {
        const list = await operatorsOf(store);
        if (json) return print(JSON.stringify(list));
        if (list.length === 0) return print('no accounts');
        for (const o of list) {
          const state = o.disabled ? 'disabled' : o.passwordSet ? 'active' : 'password not set';
          print(`${o.operatorId}  ${o.email}  ${o.merchantId ?? 'platform operator'}  ${state}  created ${new Date(o.created).toISOString()}`);
        }
      }),
    );

  operator
    .command('reset-password')
    .description('print a new one-time set-password link for an account (audited); its current password works until the link is used')
    .requiredOption('--email <email>', "the account's e-mail address")
    .option('--public-url <url>', "the server's PUBLIC_URL, which the link starts with (default: the PUBLIC_URL setting)")
    .action(({ email, publicUrl }: { email: string; publicUrl?: string }) =>
      withStore(async (store) => {
        const link = await issueSetPasswordLink(store, email, linkRoot(publicUrl, true));
        print(`set-password link for ${email.trim().toLowerCase()} (one use, 7 days): ${link}`);
      }),
    );

  operator
    .command('disable')
    .description('disable an account for good; its sessions end at once')
    .requiredOption('--email <email>', "the account's e-mail address")
    .action(({ email }: { email: string }) =>
      withStore(async (store) => {
        await disableAccount(store, email);
        print(`account ${email.trim().toLowerCase()} disabled`);
      }),
    );
}
