/** The console's audit log page (docs/console.md "Audit log"): what operators did, newest first, a page at a time; a merchant's account sees its own merchant's. */
import type { FastifyInstance } from 'fastify';
import { auditEntries } from '../operators/audit.ts';
import { PAGE_SIZE, type ConsoleContext, type Query } from './context.ts';
import { auditPage } from './views.ts';

export function auditRoutes(app: FastifyInstance, { store, viewOf, send }: ConsoleContext) {
  app.get<{ Querystring: Query }>('/dashboard/audit', async (request, reply) => {
    const view = viewOf(request, request.consoleSession);
    const before = Number(request.query.before);
    const entries = await auditEntries(store, request.consoleSession.operator, {
      limit: PAGE_SIZE,
      ...(Number.isSafeInteger(before) && before > 0 ? { beforeId: before } : {}),
    });
    const olderQuery = entries.length === PAGE_SIZE ? `before=${entries[PAGE_SIZE - 1].id}` : undefined;
    return send(reply, view, auditPage(view, entries, olderQuery));
  });
}
