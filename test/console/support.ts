/** Console test support: accounts made as `kassa operator create` makes them, and signing in over HTTP as a browser without scripts would. */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Injector } from '../support/app.ts';
import type { Store } from '../../src/store/store.ts';
import { createOperator } from '../../src/operators/accounts.ts';
import { FORM, csrfOf } from '../pages/flow.ts';

export const PASSWORD = 'correct horse battery 42';

export async function makeAccount(store: Store, email: string, merchantId?: string) {
  return createOperator(store, { email, merchantId, password: PASSWORD, publicUrl: 'http://kassa.test' });
}

/** The cookies a response sets, as a Cookie header's value (name=value; …). */
export const cookiesOf = (response: LightMyRequestResponse) => response.cookies.map((c) => `${c.name}=${c.value}`).join('; ');

/** A browser session with the console: its cookies, carried from answer to answer. */
export class ConsoleClient {
  private jar = new Map<string, string>();
  constructor(private readonly app: Injector) {}

  private remember(response: LightMyRequestResponse) {
    for (const c of response.cookies) {
      if (c.value === '' || (c.expires && c.expires.getTime() < Date.now())) this.jar.delete(c.name);
      else this.jar.set(c.name, c.value);
    }
    return response;
  }

  get cookie() {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(url: string, headers: Record<string, string> = {}) {
    return this.remember(await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookie, ...headers } }));
  }

  async post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return this.remember(
      await this.app.inject({ method: 'POST', url, headers: { ...FORM, cookie: this.cookie, ...headers }, payload: new URLSearchParams(fields).toString() }),
    );
  }

  /** A request with a raw body, for forms a record cannot express (a field sent twice). */
  async inject(method: 'POST', url: string, payload: string) {
    return this.remember(await this.app.inject({ method, url, headers: { ...FORM, cookie: this.cookie }, payload }));
  }

  async signIn(email: string, password = PASSWORD) {
    const form = await this.get('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { csrf: csrfOf(form.body), email, password });
  }

  /** The session's CSRF token, as every page's sign-out form carries it. */
  async csrf() {
    const page = await this.get('/dashboard/payments');
    assert.equal(page.statusCode, 200, page.body);
    return csrfOf(page.body);
  }
}
