/**
 * A stand-in for Adyen's Disputes API v30 on 127.0.0.1 (`DisputeService-v30.json` of
 * ADYEN_CONTRACT_DIR): every request is validated against Adyen's own document (JSON Schema
 * 2020-12, Ajv) and one that breaks it is answered 422 and recorded as a violation, so a test fails
 * on it; a request without the API key is 401. Stateful as Adyen is: a dispute the test opened
 * (`open`) can be accepted once, or defended once with one of its defense reasons; anything else is
 * `disputeServiceResult: {success: false, errorMessage}`. `silent` makes every answer a 500.
 */
import Fastify from 'fastify';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { requestValidators } from './request-validators.ts';

const contractDir = process.env.ADYEN_CONTRACT_DIR ?? '/work/shared/acquirers/adyen';
export const DISPUTES_CONTRACT = path.join(contractDir, 'DisputeService-v30.json');

interface FakeDispute {
  defenseReasons: string[];
  accepted: boolean;
  defendedWith?: string;
}

export interface FakeAdyenDisputes {
  /** The Disputes API's root, as `kassa acquirer set --disputes-endpoint` takes it. */
  url: string;
  apiKey: string;
  /** Each request as it came: its path and body. */
  requests: { path: string; body: Record<string, unknown> }[];
  violations: string[];
  disputes: Map<string, FakeDispute>;
  /** Adyen knows a dispute by its pspReference, with the defense reasons it takes for it. */
  open(pspReference: string, defenseReasons?: string[]): void;
  silent: boolean;
  close(): Promise<void>;
}

const refused = (errorMessage: string) => ({ disputeServiceResult: { success: false, errorMessage } });
const done = { disputeServiceResult: { success: true } };

/** `apiKey`: the connection's, which Kassa sends to every Adyen API. */
export async function startFakeAdyenDisputes(apiKey = `AQE${randomBytes(16).toString('hex')}`): Promise<FakeAdyenDisputes> {
  const validate = requestValidators(DISPUTES_CONTRACT, 'disputes.json', { closed: true });
  const app = Fastify({ forceCloseConnections: true });
  const fake: FakeAdyenDisputes = {
    url: '',
    apiKey,
    requests: [],
    violations: [],
    disputes: new Map(),
    open: (pspReference, defenseReasons = ['GoodsOrServicesProvided', 'SupplyDefenseMaterial']) => fake.disputes.set(pspReference, { defenseReasons, accepted: false }),
    silent: false,
    close: () => app.close(),
  };
  const answers: Record<string, (body: Record<string, unknown>, dispute: FakeDispute) => unknown> = {
    '/acceptDispute': (_body, dispute) => {
      if (dispute.accepted || dispute.defendedWith) return refused('Dispute is not in a state to be accepted');
      dispute.accepted = true;
      return done;
    },
    '/retrieveApplicableDefenseReasons': (_body, dispute) => ({
      defenseReasons: dispute.defenseReasons.map((defenseReasonCode) => ({ defenseReasonCode, satisfied: true })),
      ...done,
    }),
    '/defendDispute': (body, dispute) => {
      if (dispute.accepted || dispute.defendedWith) return refused('Dispute is not in a state to be defended');
      if (!dispute.defenseReasons.includes(body.defenseReasonCode as string)) return refused('Invalid defense reason code');
      dispute.defendedWith = body.defenseReasonCode as string;
      return done;
    },
  };
  app.post<{ Params: { route: string }; Body: Record<string, unknown> }>('/ca/services/DisputeService/v30/:route', async (request, reply) => {
    const route = `/${request.params.route}`;
    fake.requests.push({ path: route, body: request.body });
    if (fake.silent) return reply.code(500).send({ status: 500, errorCode: '000', message: 'Internal error', errorType: 'internal' });
    if (request.headers['x-api-key'] !== fake.apiKey) return reply.code(401).send({ status: 401, errorCode: '000', message: 'Unauthorized', errorType: 'security' });
    const check = validate[route];
    const answer = answers[route];
    if (!check || !answer) return reply.code(404).send({ status: 404, errorCode: '000', message: 'Not found', errorType: 'validation' });
    if (!check(request.body)) {
      fake.violations.push(`disputes ${route}: ${JSON.stringify(check.errors)}`);
      return reply.code(422).send({ status: 422, errorCode: '702', message: 'Structure of the request is invalid', errorType: 'validation' });
    }
    const dispute = fake.disputes.get(request.body.disputePspReference as string);
    return dispute ? answer(request.body, dispute) : refused('Dispute not found');
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  fake.url = `${address}/ca/services/DisputeService/v30`;
  return fake;
}
