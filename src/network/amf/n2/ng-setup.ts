import type { MessageOf } from '../../asn1/message-runtime.ts';
import type { readNGSetupRequest } from '../../ngap/generated/messages.ts';
import type { Cause, ExtendedRANNodeName, NGAPPDU, ServedGUAMIList } from '../../ngap/generated/types.ts';
import type { SupportedTai } from '../../radio-registry.ts';
import type { AmfIdentity } from '../context/amf-identity.ts';
import { ngSetupFailure, ngSetupResponse } from './ngap-messages.ts';
import { ranNodeOf, type RanNode } from './ran-node.ts';
import { plmnSupportList, type ServedNetwork } from '../context/served-network.ts';
import { servedTaCheck, supportedTais } from './supported-tas.ts';

/** NG Setup (TS 38.413 8.7.1) as the AMF decides it, before anything is sent or stored. */
type NgSetupDecision =
  | {
      accepted: true;
      node: RanNode;
      /** RANNodeName (or Extended-RANNodeName); undefined when the node sent none. */
      name: string | undefined;
      supportedTais: SupportedTai[];
      answer: NGAPPDU;
    }
  | {
      accepted: false;
      /** The node, when its Global RAN Node ID could be read. */
      node: RanNode | undefined;
      name: string | undefined;
      cause: Cause;
      answer: NGAPPDU;
    };

/** The node's name: RANNodeName, else the printable or UTF-8 form of Extended-RANNodeName (9.3.1.193). */
export function ranNodeName(
  name: string | undefined,
  extended: ExtendedRANNodeName | undefined,
): string | undefined {
  return name ?? extended?.rANNodeNameVisibleString ?? extended?.rANNodeNameUTF8String;
}

/**
 * Decides an NG Setup Request (network.md section 2): accepted when one broadcast TAI carries the
 * operator's PLMN and one of its TACs, answered with the AMF's name, the served GUAMIs of its AMF set
 * (`servedGuamis`, set/served-guamis.ts), its relative capacity and PLMN support (every configured slice). Refused with NG Setup Failure: a node type this AMF does
 * not serve -> misc `unspecified`; otherwise the causes of `servedTaCheck`. The request is read by its
 * generated reader (TS 38.413 10.3): its mandatory IEs of criticality reject are there.
 */
export function decideNgSetup(
  request: MessageOf<typeof readNGSetupRequest>,
  context: { identity: AmfIdentity; network: ServedNetwork; servedGuamis: ServedGUAMIList },
): NgSetupDecision {
  const node = ranNodeOf(request.globalRanNodeId);
  const name = ranNodeName(request.ranNodeName, request.extendedRanNodeName);
  const refuse = (cause: Cause): NgSetupDecision => ({
    accepted: false,
    node,
    name,
    cause,
    answer: ngSetupFailure(cause),
  });

  if (node === undefined) return refuse({ choice: 'misc', value: 'unspecified' });
  const tais = supportedTais(request.supportedTaList);
  const check = servedTaCheck(tais, context.network);
  if (!check.ok) return refuse(check.cause);

  const { identity, network, servedGuamis } = context;
  return {
    accepted: true,
    node,
    name,
    supportedTais: tais,
    answer: ngSetupResponse({
      amfName: identity.name,
      servedGuamis,
      relativeCapacity: identity.relativeCapacity,
      plmnSupport: plmnSupportList(network),
    }),
  };
}
