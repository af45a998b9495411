/**
 * A typed client for Kassa's merchant API. The types are generated from the API's OpenAPI
 * document (`openapi.ts`, by openapi-typescript; regenerate with `npm run client:generate` in
 * Kassa's repository), the requests go through openapi-fetch. Every method answers the
 * transaction (or what the route answers) or throws a `KassaProblem` carrying the RFC 9457 body.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './openapi.ts';

export type { components, paths } from './openapi.ts';
export { verifyWebhook, WebhookVerificationError, type KassaWebhook } from './webhooks.ts';

type Schemas = components['schemas'];
export type Payment = Schemas['Payment'];
export type PaymentRequest = Schemas['PaymentRequest'];
export type EnrollmentRequest = Schemas['EnrollmentRequest'];
export type RefundRequest = Schemas['RefundRequest'];
export type CaptureRequest = Schemas['CaptureRequest'];
export type ReversalRequest = Schemas['ReversalRequest'];
export type TestCompletion = Schemas['TestCompletion'];
export type TestDispute = Schemas['TestDispute'];
export type DisputeDefense = Schemas['DisputeDefense'];
export type PaymentMethods = Schemas['PaymentMethods'];
export type Problem = Schemas['Problem'];
export type FieldError = Schemas['FieldError'];
/** A problem type's stable name, the same on every Kassa: its `type` is `PUBLIC_URL/docs#problem-<slug>`, the section explaining it. */
export type ProblemSlug = Problem['type'] extends infer Type ? (Type extends `${string}#problem-${infer Slug}` ? Slug : never) : never;

const slugOf = (type: string) => {
  const at = type.lastIndexOf('#problem-');
  return at < 0 ? undefined : type.slice(at + '#problem-'.length);
};

/** An answer that is not a success: the problem Kassa sent (or, when the body was not one, a stand-in naming the status). */
export class KassaProblem extends Error {
  readonly status: number;
  /** Where your Kassa explains this problem (`PUBLIC_URL/docs#problem-<slug>`). */
  readonly type: string;
  /** What to match on in code: the problem type's name, without your Kassa's address (undefined when the body was no Kassa problem). */
  readonly slug: ProblemSlug | undefined;
  readonly errors: readonly FieldError[];

  constructor(
    readonly problem: Problem | { type: string; title: string; status: number; detail?: string; errors?: FieldError[] },
    /** Seconds to wait before sending again (409, 429, 503), when Kassa said. */
    readonly retryAfter?: number,
  ) {
    super(problem.detail ? `${problem.title}: ${problem.detail}` : problem.title);
    this.name = 'KassaProblem';
    this.status = problem.status;
    this.type = problem.type;
    this.slug = slugOf(problem.type) as ProblemSlug | undefined;
    this.errors = problem.errors ?? [];
  }
}

export interface KassaClientOptions {
  /** `{base_url}`: your Kassa's `PUBLIC_URL` followed by `/api/v1`. */
  baseUrl: string;
  /** The merchant's API key (`test_…` or `live_…`). */
  apiKey: string;
  /** A fetch of your own (a proxy, a test double); the global fetch otherwise. */
  fetch?: typeof globalThis.fetch;
}

/** Options of a POST that changes something: the same `idempotencyReference` never does it twice. */
export interface WriteOptions {
  idempotencyReference?: string;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

function unwrap<T>({ data, error, response }: Answer<T>): T {
  if (response.ok && data !== undefined) return data;
  const retryAfter = response.headers.get('retry-after');
  const problem =
    typeof error === 'object' && error !== null && 'type' in error && 'title' in error
      ? (error as Problem)
      : { type: 'about:blank', title: response.statusText || 'Unexpected answer', status: response.status };
  throw new KassaProblem(problem, retryAfter === null ? undefined : Number(retryAfter));
}

const idempotency = (options: WriteOptions | undefined) =>
  options?.idempotencyReference === undefined ? {} : { header: { 'Idempotency-Reference': options.idempotencyReference } };

export interface KassaClient {
  /** The generated openapi-fetch client itself, for anything the methods below do not cover. */
  readonly api: Client<paths>;
  createPayment(request: PaymentRequest, options?: WriteOptions): Promise<Payment>;
  transaction(reference: string): Promise<Payment>;
  /** Up to 50 at once; unknown references are left out. */
  transactions(references: readonly string[]): Promise<Payment[]>;
  methods(): Promise<PaymentMethods>;
  enrolCard(request: EnrollmentRequest, options?: WriteOptions): Promise<Payment>;
  refund(request: RefundRequest, options?: WriteOptions): Promise<Payment>;
  capture(request: CaptureRequest, options?: WriteOptions): Promise<Payment>;
  reversal(request: ReversalRequest, options?: WriteOptions): Promise<Payment>;
  /** Accepts a dispute (a `chargeback` transaction): the chargeback stands. */
  acceptDispute(request: { reference: string }, options?: WriteOptions): Promise<Payment>;
  /** Defends a dispute with one of the defense reasons its acquirer takes. */
  defendDispute(request: DisputeDefense, options?: WriteOptions): Promise<Payment>;
  /** Test keys only. */
  completeTestPayment(request: TestCompletion, options?: WriteOptions): Promise<Payment>;
  /** Test keys only: raises a dispute on a paid payment, or moves a test dispute to `stage`. */
  raiseTestDispute(request: TestDispute, options?: WriteOptions): Promise<Payment>;
}

export function createKassaClient({ baseUrl, apiKey, fetch }: KassaClientOptions): KassaClient {
  const api = createClient<paths>({
    baseUrl,
    headers: { Authorization: `Basic ${btoa(`${apiKey}:`)}` },
    ...(fetch ? { fetch } : {}),
  });
  return {
    api,
    createPayment: async (body, options) => unwrap(await api.POST('/payment', { body, params: idempotency(options) })),
    transaction: async (reference) => unwrap(await api.GET('/transaction', { params: { query: { reference } } })) as Payment,
    transactions: async (references) => unwrap(await api.GET('/transaction', { params: { query: { references: references.join(',') } } })) as Payment[],
    methods: async () => unwrap(await api.GET('/method')),
    enrolCard: async (body, options) => unwrap(await api.POST('/token', { body, params: idempotency(options) })),
    refund: async (body, options) => unwrap(await api.POST('/refund', { body, params: idempotency(options) })),
    capture: async (body, options) => unwrap(await api.POST('/capture', { body, params: idempotency(options) })),
    reversal: async (body, options) => unwrap(await api.POST('/reversal', { body, params: idempotency(options) })),
    acceptDispute: async (body, options) => unwrap(await api.POST('/dispute/accept', { body, params: idempotency(options) })),
    defendDispute: async (body, options) => unwrap(await api.POST('/dispute/defend', { body, params: idempotency(options) })),
    completeTestPayment: async (body, options) => unwrap(await api.POST('/test/complete', { body, params: idempotency(options) })),
    raiseTestDispute: async (body, options) => unwrap(await api.POST('/test/dispute', { body, params: idempotency(options) })),
  };
}
