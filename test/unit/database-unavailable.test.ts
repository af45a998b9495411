/**
 * Which database errors are the database being away (store/unavailable.ts): 503 with Retry-After,
 * never 500; and only errors the database's driver raised: the same network error of an acquirer
 * or a webhook target is not the database.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import BetterSqlite3 from 'better-sqlite3';
import { databaseUnavailable, raisedByDatabase } from '../../src/store/unavailable.ts';

const coded = (code: string, message = 'failed') => Object.assign(new Error(message), { code });
/** An error as the PostgreSQL adapter passes on what pg rejected with, or the SQLite adapter its WAL's fsync. */
const fromPg = (error: Error) => raisedByDatabase(error);
const fromSqlite = (code: string, message: string) => new BetterSqlite3.SqliteError(message, code);

const cases: [string, unknown, string | undefined][] = [
  ['PostgreSQL shutting down (57P01)', fromPg(coded('57P01', 'terminating connection due to administrator command')), '5'],
  ['PostgreSQL starting up (57P03)', fromPg(coded('57P03', 'the database system is starting up')), '5'],
  ['a connection exception (08006)', fromPg(coded('08006')), '5'],
  ['PostgreSQL disk full (53100)', fromPg(coded('53100', 'could not extend file')), '5'],
  ['connection refused', fromPg(coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')), '5'],
  ['connection reset', fromPg(coded('ECONNRESET')), '5'],
  ['every address refused', fromPg(new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')])), '5'],
  ['pg: connection lost during a query', fromPg(new Error('Connection terminated unexpectedly')), '5'],
  ['pg: a client after its connection failed', fromPg(new Error('Client has encountered a connection error and is not queryable')), '5'],
  ['pg-pool: no connection in time', fromPg(new Error('timeout exceeded when trying to connect')), '5'],
  [
    'pg-pool: a connect timeout wrapped',
    fromPg(new Error('Connection terminated due to connection timeout', { cause: new Error('Connection terminated unexpectedly') })),
    '5',
  ],
  ['SQLite disk full', fromSqlite('SQLITE_FULL', 'database or disk is full'), '5'],
  ['SQLite I/O error', fromSqlite('SQLITE_IOERR_WRITE', 'disk I/O error'), '5'],
  ['SQLite locked by another writer', fromSqlite('SQLITE_BUSY', 'database is locked'), '1'],
  ['the WAL fsync with the disk full', raisedByDatabase(coded('ENOSPC')), '5'],
  ['a unique violation (23505) is not', fromPg(coded('23505', 'duplicate key value')), undefined],
  ['a syntax error (42601) is not', fromPg(coded('42601')), undefined],
  ['a SQLite constraint is not', fromSqlite('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed'), undefined],
  ['a plain error is not', new Error('boom'), undefined],
  ['a thrown string is not', 'Connection terminated', undefined],
  // The same codes from elsewhere: an acquirer's or a webhook target's connection is not the database.
  ['an acquirer connection reset (raw ECONNRESET) is not', coded('ECONNRESET', 'read ECONNRESET'), undefined],
  ['a webhook target timing out (raw ETIMEDOUT) is not', coded('ETIMEDOUT', 'connect ETIMEDOUT 203.0.113.9:443'), undefined],
  ["fetch's failure with a reset connection as its cause is not", new TypeError('fetch failed', { cause: coded('ECONNRESET') }), undefined],
  ['an acquirer host not found is not', coded('ENOTFOUND', 'getaddrinfo ENOTFOUND checkout-test.example'), undefined],
  ['an error that only looks like pg’s is not', new Error('Connection terminated unexpectedly'), undefined],
  ['a SQLite code on an error SQLite did not raise is not', coded('SQLITE_FULL'), undefined],
];

for (const [name, error, retryAfter] of cases) {
  test(`${name}${retryAfter ? `: 503, Retry-After ${retryAfter}` : ''}`, () => {
    const problem = databaseUnavailable(error);
    assert.equal(problem?.status, retryAfter ? 503 : undefined);
    assert.equal(problem?.headers['Retry-After'], retryAfter);
    if (problem) assert.equal(problem.title, 'Database unavailable');
  });
}
