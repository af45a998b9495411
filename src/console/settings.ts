/**
 * A merchant's settings in the console (docs/console.md "Settings"): API keys, webhook URL,
 * signing secret and a test webhook, accepted payment methods and card brands, vault payment
 * path. Each change is one function of merchants/ or events/ — the one `kassa merchant …`, `kassa key rotate` and
 * `kassa webhook …` call — listed here as data with the audit log entry it writes, done or
 * refused. A new key or secret is shown once, in the answer to the POST that made it, and never
 * written to the audit log.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/store.ts';
import type { Mode } from '../store/schema.ts';
import { changePaymentMethods, merchantOverviews, rotateApiKey, setCardBrands, setVaultPaymentPath } from '../merchants/merchants.ts';
import { paymentMethods } from '../ground/payment-method.ts';
import { deliveriesOf, rotateWebhookSecret, sendTestWebhook, setWebhookUrl, showWebhook } from '../events/admin.ts';
import { accountActor, audit } from '../operators/audit.ts';
import { invalidSetting, Problem } from '../ground/problem.ts';
import { field, type Form } from '../lib/page-security.ts';
import type { MessageKey } from './i18n.ts';
import { visibleMerchantId, type ConsoleContext } from './context.ts';
import { merchantsPage, settingsPage, type SettingsMessages } from './settings-views.ts';

const modeOf = (form: Form): string => field(form, 'mode') ?? '';
const requireMode = (mode: string): Mode => {
  if (mode !== 'test' && mode !== 'live') throw invalidSetting('mode', 'must be test or live');
  return mode;
};

/** A value shown once: what it is and the value. */
type ShownOnce = { label: MessageKey; value: string };

interface Change {
  /** The audit log's action. */
  action: string;
  /** The form's values the change takes; these go into the audit log too (never a secret). */
  input(form: Form): Record<string, unknown>;
  /** Makes the change; answers what the audit log keeps of the result and what is shown once, if anything. */
  perform(store: Store, merchantId: string, input: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; shownOnce?: ShownOnce }>;
}

const changes = {
  'api-key': {
    action: 'rotate_api_key',
    input: (form) => ({ mode: modeOf(form) }),
    perform: async (store, merchantId, input) => {
      const mode = requireMode(String(input.mode));
      const apiKey = await rotateApiKey(store, merchantId, mode);
      return { result: { keyPrefix: apiKey.slice(0, 12) }, shownOnce: { label: mode === 'live' ? 'newLiveKey' : 'newTestKey', value: apiKey } };
    },
  },
  'webhook-url': {
    action: 'set_webhook_url',
    input: (form) => ({ url: (field(form, 'url') ?? '').trim() }),
    perform: async (store, merchantId, input) => {
      await setWebhookUrl(store, merchantId, input.url === '' ? null : String(input.url));
      return {};
    },
  },
  'webhook-secret': {
    action: 'rotate_webhook_secret',
    input: () => ({}),
    perform: async (store, merchantId) => ({ shownOnce: { label: 'newWebhookSecret', value: (await rotateWebhookSecret(store, merchantId)).secret } }),
  },
  'test-webhook': {
    action: 'test_webhook',
    input: (form) => ({ mode: modeOf(form) }),
    perform: async (store, merchantId, input) => ({ result: { delivery: (await sendTestWebhook(store, merchantId, requireMode(String(input.mode)))).id } }),
  },
  'payment-methods': {
    action: 'set_payment_methods',
    input: (form) => ({ methods: ([] as unknown[]).concat(form.methods ?? []).filter((method): method is string => typeof method === 'string') }),
    perform: async (store, merchantId, input) => {
      // The form lists every known method: one left unchecked is disabled.
      const checked = input.methods as string[];
      await changePaymentMethods(store, merchantId, { enable: checked, disable: paymentMethods.filter((method) => !checked.includes(method)) });
      return {};
    },
  },
  'card-brands': {
    action: 'set_card_brands',
    input: (form) => ({ brands: ([] as unknown[]).concat(form.brands ?? []).filter((brand): brand is string => typeof brand === 'string') }),
    perform: async (store, merchantId, input) => {
      await setCardBrands(store, merchantId, input.brands as string[]);
      return {};
    },
  },
  'vault-path': {
    action: 'set_vault_path',
    input: (form) => ({ path: field(form, 'path') ?? '' }),
    perform: async (store, merchantId, input) => {
      await setVaultPaymentPath(store, merchantId, String(input.path));
      return {};
    },
  },
} satisfies Record<string, Change>;

type ChangeName = keyof typeof changes;
const changeNames = Object.keys(changes) as ChangeName[];

/** The settings pages and their POSTs, in the signed-in scope (its hooks check the session and the CSRF token). */
export function settingsRoutes(app: FastifyInstance, { store, viewOf, send }: ConsoleContext) {
  app.get('/dashboard/merchants', async (request, reply) => {
    const session = request.consoleSession;
    if (session.operator.merchantId !== null) return reply.redirect(`/dashboard/merchants/${session.operator.merchantId}`, 303);
    const view = viewOf(request, session);
    return send(reply, view, merchantsPage(view, await merchantOverviews(store.read)));
  });

  app.get<{ Params: { merchantId: string }; Querystring: { done?: string } }>('/dashboard/merchants/:merchantId', async (request, reply) => {
    const done = request.query.done;
    const notice = done && (changeNames as string[]).includes(done) ? (`done_${done}` as MessageKey) : undefined;
    return showSettings(request, reply, { ...(notice ? { notice: viewOf(request).t(notice) } : {}) });
  });

  for (const name of changeNames) {
    app.post<{ Params: { merchantId: string }; Body: Form }>(`/dashboard/merchants/:merchantId/${name}`, async (request, reply) => {
      const session = request.consoleSession;
      const merchantId = visibleMerchantId(session, request.params.merchantId);
      if ((await merchantOverviews(store.read, merchantId)).length === 0) throw new Problem('notFound', 'No such merchant.');
      const change: Change = changes[name];
      const input = change.input(request.body ?? {});
      const entry = { action: change.action, merchantId, subject: merchantId };
      const actor = accountActor(session.operator, request.ip);
      try {
        const { result, shownOnce } = await change.perform(store, merchantId, input);
        await audit(store, request.log, actor, { ...entry, detail: { ...input, ...result } });
        // A new key or secret is shown in this answer only: a redirect would have to carry it in the address.
        if (shownOnce) return showSettings(request, reply, { notice: viewOf(request).t(`done_${name}`), shownOnce });
        return reply.redirect(`/dashboard/merchants/${merchantId}?done=${name}`, 303);
      } catch (error) {
        if (!(error instanceof Problem && error.code === 'invalidSetting')) throw error;
        await audit(store, request.log, actor, { ...entry, outcome: 'refused', detail: { ...input, refused: error.message } });
        const typed = typeof input.url === 'string' ? { typedUrl: input.url } : {};
        return showSettings(request, reply, { problem: { field: error.field, reason: error.reason ?? error.message }, ...typed }, 422);
      }
    });
  }

  async function showSettings(request: FastifyRequest<{ Params: { merchantId: string } }>, reply: FastifyReply, messages: SettingsMessages, status = 200) {
    const session = request.consoleSession;
    const view = viewOf(request, session);
    const merchantId = visibleMerchantId(session, request.params.merchantId);
    const [merchant] = await merchantOverviews(store.read, merchantId);
    if (!merchant) throw new Problem('notFound', 'No such merchant.');
    const [webhook, testDeliveries] = await Promise.all([showWebhook(store, merchantId), deliveriesOf(store, { merchantId, event: 'test', limit: 5 })]);
    return send(reply, view, settingsPage(view, { merchant, webhookUrl: webhook.url, testDeliveries, ...messages }), status);
  }
}
