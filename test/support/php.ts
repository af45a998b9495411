/**
 * Test support: the official PHP merchant client (docs/interop.md), unmodified, from CCV_PHP_CLIENT
 * (the path of its autoload.php; default /work/shared/clients/ccv-php/autoload.php, the copy on the
 * project's build machines; elsewhere install it with Composer: docs/testing.md#the-official-php-client),
 * and whether PHP can run it here.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export const phpClientAutoload = process.env.CCV_PHP_CLIENT ?? '/work/shared/clients/ccv-php/autoload.php';

/** Why the PHP client cannot run here, or undefined when it can. */
export function phpMissing(): string | undefined {
  let modules: string;
  try {
    modules = execFileSync('php', ['-m'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  } catch {
    return 'php is not installed (Debian: apt-get install -y php-cli php-curl php-mbstring php-psr-log; .ci/run does this)';
  }
  for (const module of ['curl', 'mbstring']) if (!new RegExp(`^${module}$`, 'm').test(modules)) return `php has no ${module} module (apt-get install -y php-${module})`;
  if (!fs.existsSync(phpClientAutoload)) return `the PHP client is not at ${phpClientAutoload} (set CCV_PHP_CLIENT; docs/testing.md#the-official-php-client)`;
  return undefined;
}
