/**
 * Vault enrollment (docs/api.md#vault-enrollment): `dataType: "card"` creates a pending transaction with
 * `method: "vault"`, `type: "token"` and a `payUrl` where the customer enters the card
 * to store. Its rules are the `enrollment` entry of payments/flows.ts; the 3-D Secure 2
 * data is validated as for payments, in enrollment mode.
 */
import { Problem, type FieldError } from '../ground/problem.ts';
import { pendingTransactionRow, type PlannedTransaction } from './pending-transaction.ts';
import type { Caller } from '../merchants/merchants.ts';
import { checkTable } from '../ground/field-engine.ts';
import { compileTable, type RequestRules, type RequestRun } from './requests/rows.ts';
import { commonFields, commonFieldsOf, type CommonFields } from './requests/common-fields.ts';
import { flows } from './flows.ts';
import { validateThreeDS, type ThreeDSData } from '../threeds/validate.ts';
import type { SecretBox } from '../lib/secret-box.ts';

export interface EnrollmentRequest extends CommonFields {
  threeDS: ThreeDSData;
}

/** Enrollments carry no amount; the payment object shows 0 in this currency. */
const ENROLLMENT_CURRENCY = 'eur';

const enrollment = flows.enrollment;
const { dataType } = enrollment.recognisedBy;

export const enrollmentTable = compileTable({
  dataType: { required: true, requiredMessage: `is required: ${dataType}`, enum: [dataType], enumMessage: `must be ${dataType}` },
  ...commonFields,
});

export function parseEnrollmentRequest(body: Record<string, unknown>, rules: RequestRules): { errors: FieldError[]; request?: EnrollmentRequest } {
  const run: RequestRun = { flow: 'enrollment', settings: undefined, ...rules, errors: [], values: {} };
  checkTable(enrollmentTable, body, run, run.values);
  const threeDS = validateThreeDS(body, enrollment.threeDS);
  run.errors.push(...threeDS.errors);
  return run.errors.length > 0 ? { errors: run.errors } : { errors: run.errors, request: { threeDS: threeDS.data, ...commonFieldsOf(run.values) } };
}

/** The new enrollment's row, decided without I/O (validation included); stored by the route's unit of work. */
export function planEnrollment(
  body: Record<string, unknown>,
  ctx: { caller: Caller; now: number; expiryMs: number; rules: RequestRules; secrets: SecretBox },
): PlannedTransaction {
  const { errors, request } = parseEnrollmentRequest(body, ctx.rules);
  if (!request) throw new Problem('validationFailed', { errors });
  return pendingTransactionRow(request, {
    owner: ctx.caller,
    method: enrollment.method,
    type: enrollment.transactionTypes[0],
    flow: 'enrollment',
    amountMinor: 0,
    currency: ENROLLMENT_CURRENCY,
    storedRequest: {},
    details: {},
    now: ctx.now,
    expiresAt: ctx.now + ctx.expiryMs,
    secrets: ctx.secrets,
  });
}
