import type { MessageOf } from '../../asn1/message-runtime.ts';
import type { readRANConfigurationUpdate } from '../../ngap/generated/messages.ts';
import type { Cause, NGAPPDU } from '../../ngap/generated/types.ts';
import type { RadioChanges } from '../../radio-registry.ts';
import { ranConfigurationUpdateAcknowledge, ranConfigurationUpdateFailure } from './ngap-messages.ts';
import { ranNodeName } from './ng-setup.ts';
import type { ServedNetwork } from '../context/served-network.ts';
import { servedTaCheck, supportedTais } from './supported-tas.ts';

type RanConfigurationUpdateDecision =
  | { accepted: true; changes: RadioChanges; answer: NGAPPDU }
  | { accepted: false; cause: Cause; answer: NGAPPDU };

/**
 * RAN Configuration Update (TS 38.413 8.7.2) under the rules of NG Setup (network.md section 2): a new
 * name and a new Supported TA List replace the radio's; a list that no longer serves the operator's
 * PLMN and TACs is refused with RAN Configuration Update Failure and the causes of NG Setup, and the
 * radio keeps its previous configuration. Absent IEs leave what they describe unchanged (8.7.2.2).
 */
export function decideRanConfigurationUpdate(
  update: MessageOf<typeof readRANConfigurationUpdate>,
  network: ServedNetwork,
): RanConfigurationUpdateDecision {
  const changes: RadioChanges = {};
  const name = ranNodeName(update.ranNodeName, update.extendedRanNodeName);
  if (name !== undefined) changes.name = name;
  const list = update.supportedTaList;
  if (list !== undefined) {
    const tais = supportedTais(list);
    const check = servedTaCheck(tais, network);
    if (!check.ok)
      return { accepted: false, cause: check.cause, answer: ranConfigurationUpdateFailure(check.cause) };
    changes.supportedTais = tais;
  }
  return { accepted: true, changes, answer: ranConfigurationUpdateAcknowledge() };
}
