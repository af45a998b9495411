/**
 * Why a transaction's event happened: the `cause` column of transaction_events, which the
 * console shows in words (`cause.<cause>` in each catalogue of console/messages/). Every writer
 * of an event takes an `EventCause`, and the console's catalogues are checked against this
 * list by the compiler (console/i18n.ts), so a cause added here without its text in every
 * language does not compile.
 */
export const eventCauses = [
  'created',
  'acquirer_authorised',
  'acquirer_captured',
  'acquirer_declined',
  'acquirer_redirect_not_taken',
  'simulator_page',
  'acquirer_notification',
  'acquirer_outcome_unknown',
  'acquirer_refunded',
  'acquirer_refused',
  'acquirer_technical_cancel',
  'acquirer_timeout',
  'authentication_failed',
  'capture',
  'reversal',
  'reversal_refused_by_acquirer',
  'acquirer_capture_failed',
  'acquirer_recaptured',
  'acquirer_refund_failed',
  'acquirer_refund_reversed',
  'acquirer_authorisation_expired',
  'acquirer_cancel_refused',
  'acquirer_offer_closed',
  'acquirer_paid_late',
  'late_payment_returned',
  'late_payment_not_returned',
  'acquirer_word_mismatch',
  'acquirer_notice',
  'acquirer_dispute',
  'dispute_not_counted',
  'card_enrolled',
  'card_attempts_exceeded',
  'expired',
  'operator_resolved',
  'test_helper',
  'merchant_accepted',
  'merchant_defended',
  'merchant_cancel',
  'customer_cancel',
] as const;

export type EventCause = (typeof eventCauses)[number];
