/**
 * 3-D Secure done by the acquirer (docs/acquirers.md "3-D Secure through Adyen"): a 3-D Secure
 * session may belong to the acquirer's own 3DS Server instead of Kassa's. It then keeps the
 * acquirer's token for the next call (Adyen's `threeDS2Token`, which `/authorise3ds2` needs
 * after the 3DS method and after the challenge) and the protocol version the issuer's ACS
 * speaks, which the CReq must carry.
 */
import type { Kysely } from 'kysely';

export const acquirerAuthentication = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('threeds_sessions').addColumn('acquirer_token', 'text').execute();
    await db.schema.alterTable('threeds_sessions').addColumn('message_version', 'text').execute();
  },
});
