/** Queries of `acquirer_connections` (012), nothing else: each merchant's acquirer per mode, its credentials sealed. */
import type { Db } from './store.ts';
import type { Mode } from './schema.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { bindings } from './secrets.ts';

export interface AcquirerConnection {
  merchantId: string;
  mode: Mode;
  connector: string;
  endpoint: string;
  /** The roots of the acquirer's other APIs, by name (docs/acquirers.md "Connections"). */
  endpoints: AcquirerEndpoints;
  account: string;
  /** The connector's credentials, opened. Never logged, never printed. */
  secrets: Record<string, string>;
  updated: number;
}

/** An acquirer's APIs besides the one at `endpoint` (Adyen: Checkout for methods paid elsewhere, Disputes). */
export interface AcquirerEndpoints {
  checkout?: string;
  disputes?: string;
}

export async function saveAcquirerConnection(db: Db, secretBox: SecretBox, connection: AcquirerConnection): Promise<void> {
  const row = {
    merchant_id: connection.merchantId,
    mode: connection.mode,
    connector: connection.connector,
    endpoint: connection.endpoint,
    endpoints: Object.keys(connection.endpoints).length > 0 ? JSON.stringify(connection.endpoints) : null,
    account: connection.account,
    secrets: secretBox.seal(JSON.stringify(connection.secrets), bindings.acquirerSecrets(connection.merchantId, connection.mode)),
    updated: connection.updated,
  };
  await db
    .insertInto('acquirer_connections')
    .values(row)
    .onConflict((oc) => oc.columns(['merchant_id', 'mode']).doUpdateSet({ ...row }))
    .execute();
}

type ConnectionRow = {
  merchant_id: string;
  mode: Mode;
  connector: string;
  endpoint: string;
  endpoints: string | null;
  account: string;
  secrets: string;
  updated: number | string;
};

const opened = (secretBox: SecretBox, row: ConnectionRow): AcquirerConnection => ({
  merchantId: row.merchant_id,
  mode: row.mode,
  connector: row.connector,
  endpoint: row.endpoint,
  endpoints: row.endpoints ? (JSON.parse(row.endpoints) as AcquirerEndpoints) : {},
  account: row.account,
  secrets: JSON.parse(secretBox.open(row.secrets, bindings.acquirerSecrets(row.merchant_id, row.mode))) as Record<string, string>,
  updated: Number(row.updated),
});

export async function findAcquirerConnection(db: Db, secretBox: SecretBox, owner: { merchantId: string; mode: Mode }): Promise<AcquirerConnection | undefined> {
  const row = await db.selectFrom('acquirer_connections').selectAll().where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode).executeTakeFirst();
  return row && opened(secretBox, row);
}

/** The connections of one account at one acquirer: whose notifications these may be. */
export async function findAcquirerConnectionsByAccount(db: Db, secretBox: SecretBox, connector: string, account: string, mode: Mode): Promise<AcquirerConnection[]> {
  const rows = await db
    .selectFrom('acquirer_connections')
    .selectAll()
    .where('connector', '=', connector)
    .where('account', '=', account)
    .where('mode', '=', mode)
    .execute();
  return rows.map((row) => opened(secretBox, row));
}

export async function listAcquirerConnections(db: Db, secretBox: SecretBox, merchantId: string): Promise<AcquirerConnection[]> {
  const rows = await db.selectFrom('acquirer_connections').selectAll().where('merchant_id', '=', merchantId).orderBy('mode').execute();
  return rows.map((row) => opened(secretBox, row));
}
