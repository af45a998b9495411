/**
 * GET /dashboard/overview: payments per UTC day and method and their success rate over a period
 * (default the last 30 days, today included), counted by the database (store/payment-stats.ts),
 * in one mode at a time (the default one when none is asked), and the disputes open now with the amount at stake (store/disputes.ts).
 * A merchant's account sees its own merchant only.
 */
import type { FastifyInstance } from 'fastify';
import type { Mode } from '../store/schema.ts';
import { DAY_MS, paymentStats } from '../store/payment-stats.ts';
import { openDisputeTotals } from '../store/disputes.ts';
import { openStages } from '../ground/dispute-stages.ts';
import { identifierShaped } from '../lib/tokens.ts';
import type { ConsoleContext, Query } from './context.ts';
import { defaultMode, merchantChoices, utcDayStart } from './filters.ts';
import { modes } from './views.ts';
import { overviewPage, type OverviewFilters } from './overview-views.ts';

const DEFAULT_PERIOD_DAYS = 30;
const MAX_PERIOD_DAYS = 366;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The period and filters from the query string, each checked; the names of the ones that are not valid otherwise. */
export function parsePeriod(
  query: Query,
  ownMerchant: string | null,
  now: number,
): { filters: OverviewFilters; firstDay: number; lastDay: number } | { filters: OverviewFilters; invalid: string[] } {
  const invalid: string[] = [];
  const today = Math.floor(now / DAY_MS);
  const day = (name: 'from' | 'to', fallback: number) => {
    const raw = query[name]?.trim() || undefined;
    if (raw === undefined) return fallback;
    const ms = utcDayStart(raw);
    if (ms === undefined) invalid.push(name);
    return ms === undefined ? fallback : ms / DAY_MS;
  };
  const lastDay = day('to', today);
  const firstDay = day('from', lastDay - (DEFAULT_PERIOD_DAYS - 1));
  if (invalid.length === 0 && (firstDay > lastDay || lastDay - firstDay >= MAX_PERIOD_DAYS)) invalid.push('from', 'to');
  const merchant = ownMerchant === null ? query.merchant?.trim() || undefined : undefined;
  if (merchant !== undefined && !identifierShaped(merchant)) invalid.push('merchant');
  const mode = query.mode?.trim() || undefined;
  if (mode !== undefined && !(modes as readonly string[]).includes(mode)) invalid.push('mode');
  const filters: OverviewFilters = {
    from: query.from?.trim() || isoDay(firstDay * DAY_MS),
    to: query.to?.trim() || isoDay(lastDay * DAY_MS),
    ...(merchant ? { merchant } : {}),
    ...(mode ? { mode } : {}),
  };
  return invalid.length > 0 ? { filters, invalid } : { filters, firstDay, lastDay };
}

export function overviewRoutes(app: FastifyInstance, { store, viewOf, send }: ConsoleContext) {
  app.get<{ Querystring: Query }>('/dashboard/overview', async (request, reply) => {
    const session = request.consoleSession;
    const view = viewOf(request, session);
    const { merchantId } = session.operator;
    const merchants = await merchantChoices(store.read, merchantId);
    const period = parsePeriod(request.query, merchantId, Date.now());
    if ('invalid' in period) {
      const problem = view.t('invalidPeriod', { fields: [...new Set(period.invalid)].join(', ') });
      return send(reply, view, overviewPage(view, { filters: period.filters, merchants, days: [], counts: [], paid: [], disputes: [], problem }), 400);
    }
    const scope = merchantId ?? period.filters.merchant;
    // One mode at a time: no count or amount ever adds test money to live (docs/console.md "Test and live").
    const mode = (period.filters.mode as Mode | undefined) ?? (await defaultMode(store.read, scope));
    const filter = {
      ...(scope !== undefined ? { merchantId: scope } : {}),
      mode,
      from: period.firstDay * DAY_MS,
      to: (period.lastDay + 1) * DAY_MS,
    };
    // Open disputes count whenever they were raised: what is at stake now, not in the period.
    const [{ counts, paid }, disputes] = await Promise.all([
      paymentStats(store.read, filter),
      openDisputeTotals(store.read, {
        ...(filter.merchantId !== undefined ? { merchantId: filter.merchantId } : {}),
        mode,
        stages: openStages,
      }),
    ]);
    const days = Array.from({ length: period.lastDay - period.firstDay + 1 }, (_, i) => period.firstDay + i);
    return send(reply, view, overviewPage(view, { filters: { ...period.filters, mode }, merchants, days, counts, paid, disputes }));
  });
}
