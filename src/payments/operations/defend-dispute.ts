/**
 * Defend a dispute (`POST {base_url}/dispute/defend`, `{reference, defenseReasonCode}`,
 * docs/disputes.md "Accepting and defending"): the dispute's acquirer is asked which defense
 * reasons it takes for the dispute (Adyen's `/retrieveApplicableDefenseReasons`), then to defend it
 * with the merchant's (`/defendDispute`); the material a reason needs is supplied at the acquirer.
 * A defense moves no stage: the issuer decides, and its answer comes as the acquirer's next
 * notification (a reversal, or the next stage). The dispute keeps the reason in
 * `details.defenseReasonCode` and on its timeline.
 */
import { Problem } from '../../ground/problem.ts';
import { compileTable } from '../requests/rows.ts';
import { disputeOpenTo, disputeServiceOf, loadDispute, recordDefense, unlessRefusedDispute, type OwnDispute } from '../follow-ups/disputes.ts';
import { serializePayment } from '../serialize.ts';
import { parseFields, referenceField } from '../requests/fields.ts';
import { merchantOperation } from '../runner/operation.ts';

export const defenseTable = compileTable({
  reference: { ...referenceField, schema: { ...referenceField.schema, description: 'The dispute (its `chargeback` transaction).' } },
  defenseReasonCode: { required: true, type: 'string', maxLength: 100, schema: { description: 'One of the defense reasons the acquirer takes for this dispute.' } },
});

export const defendDispute = merchantOperation({
  name: 'defendDispute',
  parse: (body: Record<string, unknown>) => {
    const values = parseFields(defenseTable, body);
    return { reference: values.reference as string, defenseReasonCode: values.defenseReasonCode as string };
  },
  load: (input, { ports, caller }) => loadDispute(ports.store.read, caller, input.reference),
  decide: (found, input) => ({ found: disputeOpenTo(found, input.reference, 'defended'), defenseReasonCode: input.defenseReasonCode }),
  act: async ({ found, defenseReasonCode }, { ports }): Promise<{ found: OwnDispute; defenseReasonCode: string }> => {
    const service = await disputeServiceOf(ports.acquirers, found);
    const reasons = await service.defenseReasons(found.dispute.acquirer_reference);
    if (reasons.outcome !== 'done') unlessRefusedDispute(reasons, 'defend');
    else if (!reasons.reasons.includes(defenseReasonCode)) {
      const taken = reasons.reasons.length > 0 ? reasons.reasons.join(', ') : 'none';
      throw new Problem('validationFailed', {
        errors: [{ field: '/defenseReasonCode', code: 'not_applicable', message: `is not a reason the acquirer takes for this dispute (it takes: ${taken})` }],
      });
    }
    unlessRefusedDispute(await service.defend(found.dispute.acquirer_reference, defenseReasonCode), 'defend');
    return { found, defenseReasonCode };
  },
  commit: (tx, { found, defenseReasonCode }, { now }) => recordDefense(tx, found.row.reference, { defenseReasonCode, at: now }),
  answer: (row, { ports }) => serializePayment(row, ports.links),
});
