/**
 * Test support: what a test file needs from outside Node (Chromium, PHP, Redis) and what happens
 * when it is missing. On a developer's machine the file skips, saying what to install; under CI
 * (`CI` set, as .ci/run sets it) a missing dependency is a failing test instead, so the suite can
 * never go green by skipping (README "Tests").
 */
import { test } from 'node:test';
import net from 'node:net';

export const underCi = ['1', 'true'].includes((process.env.CI ?? '').toLowerCase());

/**
 * The `skip` of a suite that needs what `missing` names (undefined: nothing is missing). Under CI
 * the suite is still skipped, and a test that fails with the reason is added beside it.
 */
export function needs(missing: string | undefined): string | undefined {
  if (missing === undefined) return undefined;
  if (underCi) {
    test(`a dependency of this file is missing under CI: ${missing}`, () => {
      throw new Error(`${missing}; under CI nothing may be skipped (.ci/run installs and starts what the suite needs)`);
    });
  }
  return missing;
}

/** Why Redis cannot be reached at `url`, or undefined when it answers PING. */
export async function redisMissing(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    const fail = (why: string) => {
      socket.destroy();
      resolve(`no Redis at ${url} (${why}; Debian: apt-get install -y redis-server; .ci/run starts it)`);
    };
    socket.setTimeout(2000, () => fail('no answer in 2 s'));
    socket.once('error', (error) => fail(error.message));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      if (data.toString().startsWith('+PONG')) resolve(undefined);
      else fail(`answered ${JSON.stringify(data.toString().trim())}`);
    });
  });
}
