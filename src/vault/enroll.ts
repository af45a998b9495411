/**
 * Vault enrollment (spec §4.2): `dataType: "card"` creates a pending transaction with
 * `method: "vault"`, `type: "token"` and a `payUrl` where the customer enters the card
 * to store. The 3-D Secure 2 data is validated as for payments, in enrollment mode.
 */
import { FieldErrors, Problem, type FieldError } from '../ground/problem.ts';
import type { NewTransaction } from '../store/schema.ts';
import { pendingTransactionRow } from '../payments/pending-transaction.ts';
import type { Caller } from '../merchants/merchants.ts';
import { given, parseCommonFields, type CommonFields } from '../payments/common-fields.ts';
import { validateThreeDS, type ThreeDSData } from '../threeds/validate.ts';

export interface EnrollmentRequest extends CommonFields {
  threeDS: ThreeDSData;
}

/** Enrollments carry no amount; the payment object shows 0 in this currency. */
const ENROLLMENT_CURRENCY = 'eur';

export function parseEnrollmentRequest(body: Record<string, unknown>, mode: 'test' | 'live'): { errors: FieldError[]; request?: EnrollmentRequest } {
  const errors = new FieldErrors();
  if (!given(body.dataType)) errors.add('/dataType', 'required', 'is required: card');
  else if (body.dataType !== 'card') errors.add('/dataType', 'enum', 'must be card');
  const common = parseCommonFields(body, errors, true, mode);
  const threeDS = validateThreeDS(body, { operation: 'enrollment', usesVaultToken: false, merchantCapturesCardData: false });
  errors.list.push(...threeDS.errors);
  return errors.list.length > 0 ? { errors: errors.list } : { errors: errors.list, request: { ...common, threeDS: threeDS.data } };
}

/** The new enrollment's row, decided without I/O (validation included); stored by the route's unit of work. */
export function planEnrollment(body: Record<string, unknown>, ctx: { caller: Caller; now: number; expiryMs: number }): NewTransaction {
  const { errors, request } = parseEnrollmentRequest(body, ctx.caller.mode);
  if (!request) throw Problem.validation(errors);
  const row = pendingTransactionRow({
    ...request,
    owner: ctx.caller,
    method: 'vault',
    type: 'token',
    flow: 'enrollment',
    amountMinor: 0,
    currency: ENROLLMENT_CURRENCY,
    kept: {},
    details: {},
    now: ctx.now,
    expiresAt: ctx.now + ctx.expiryMs,
  });
  return row;
}
