/** What the console's route files share: the store, the sessions' and sign-in's settings, a request's view, and sending a page with the console's headers. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/store.ts';
import type { ConsoleSecurity } from '../config.ts';
import type { Session } from '../operators/sessions.ts';
import { Problem } from '../ground/problem.ts';
import { identifierShaped } from '../lib/tokens.ts';
import type { ConsoleView } from './views.ts';

export interface ConsoleContext {
  store: Store;
  security: ConsoleSecurity;
  viewOf(request: FastifyRequest, session?: Session): ConsoleView;
  send(reply: FastifyReply, view: ConsoleView, body: { toString(): string }, status?: number): FastifyReply;
}

export type Query = Record<string, string | undefined>;

/** Rows on a page of the payments list, the audit log, and a transaction's audit entries. */
export const PAGE_SIZE = 50;

/** The merchant id if this account may see that merchant; otherwise not found, as for one that does not exist. */
export function visibleMerchantId(session: Session, merchantId: string): string {
  if (!identifierShaped(merchantId) || (session.operator.merchantId !== null && merchantId !== session.operator.merchantId))
    throw new Problem('notFound', 'No such merchant.');
  return merchantId;
}
