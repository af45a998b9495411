/**
 * A stored card's network transaction reference (docs/vault.md "Paying off-session"): the card
 * scheme's identifier of the card's first customer-present authorisation (Visa's Transaction ID,
 * Mastercard's Trace ID), as the acquirer answered it. A merchant-initiated payment with the card
 * names it, so the issuer links the charge to the cardholder's consent given then. Null until a
 * customer-present payment with the card is authorised by an acquirer that answers one.
 */
import type { Kysely } from 'kysely';

export const vaultNetworkReference = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('vault_cards').addColumn('network_reference', 'text').execute();
  },
});
