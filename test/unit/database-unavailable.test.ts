/** Which database errors are the database being away (store/unavailable.ts): 503 with Retry-After, never 500. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseUnavailable } from '../../src/store/unavailable.ts';

const coded = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

const cases: [string, unknown, string | undefined][] = [
  ['PostgreSQL shutting down (57P01)', coded('57P01', 'terminating connection due to administrator command'), '5'],
  ['PostgreSQL starting up (57P03)', coded('57P03', 'the database system is starting up'), '5'],
  ['a connection exception (08006)', coded('08006'), '5'],
  ['PostgreSQL disk full (53100)', coded('53100', 'could not extend file'), '5'],
  ['connection refused', coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), '5'],
  ['connection reset', coded('ECONNRESET'), '5'],
  ['every address refused', new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]), '5'],
  ['pg: connection lost during a query', new Error('Connection terminated unexpectedly'), '5'],
  ['pg: a client after its connection failed', new Error('Client has encountered a connection error and is not queryable'), '5'],
  ['pg-pool: no connection in time', new Error('timeout exceeded when trying to connect'), '5'],
  ['pg-pool: a connect timeout wrapped', new Error('Connection terminated due to connection timeout', { cause: new Error('Connection terminated unexpectedly') }), '5'],
  ['SQLite disk full', coded('SQLITE_FULL', 'database or disk is full'), '5'],
  ['SQLite I/O error', coded('SQLITE_IOERR_WRITE', 'disk I/O error'), '5'],
  ['SQLite locked by another writer', coded('SQLITE_BUSY', 'database is locked'), '1'],
  ['the WAL fsync with the disk full', coded('ENOSPC'), '5'],
  ['a unique violation (23505) is not', coded('23505', 'duplicate key value'), undefined],
  ['a syntax error (42601) is not', coded('42601'), undefined],
  ['a SQLite constraint is not', coded('SQLITE_CONSTRAINT_UNIQUE'), undefined],
  ['a plain error is not', new Error('boom'), undefined],
  ['a thrown string is not', 'Connection terminated', undefined],
];

for (const [name, error, retryAfter] of cases) {
  test(`${name}${retryAfter ? `: 503, Retry-After ${retryAfter}` : ''}`, () => {
    const problem = databaseUnavailable(error);
    assert.equal(problem?.status, retryAfter ? 503 : undefined);
    assert.equal(problem?.headers['Retry-After'], retryAfter);
    if (problem) assert.equal(problem.title, 'Database unavailable');
  });
}
