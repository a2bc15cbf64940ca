import type { Cause, ExtendedRANNodeName, NGAPPDU, NGSetupRequest } from '../../ngap/generated/types.ts';
import { ieValue } from '../../ngap/ngap-values.ts';
import type { SupportedTai } from '../../radio-registry.ts';
import { guami, type AmfIdentity } from '../context/amf-identity.ts';
import { ngSetupFailure, ngSetupResponse } from './ngap-messages.ts';
import { ranNodeOf, type RanNode } from './ran-node.ts';
import { plmnSupportList, type ServedNetwork } from '../context/served-network.ts';
import { servedTaCheck, supportedTais } from './supported-tas.ts';

/** NG Setup (TS 38.413 8.7.1) as the AMF decides it, before anything is sent or stored. */
export type NgSetupDecision =
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
 * operator's PLMN and one of its TACs, answered with the AMF's name, served GUAMI, relative capacity
 * and PLMN support (every configured slice). Refused with NG Setup Failure: a node type this AMF does
 * not serve -> misc `unspecified`; otherwise the causes of `servedTaCheck`. The request's IEs passed
 * TS 38.413 10.3 before (abstract-syntax.ts): its mandatory IEs are there.
 */
export function decideNgSetup(
  request: NGSetupRequest,
  context: { identity: AmfIdentity; network: ServedNetwork },
): NgSetupDecision {
  const ies = request.protocolIEs;
  const global = ieValue(ies, 'GlobalRANNodeID');
  const node = global === undefined ? undefined : ranNodeOf(global);
  const name = ranNodeName(ieValue(ies, 'RANNodeName'), ieValue(ies, 'Extended-RANNodeName'));
  const refuse = (cause: Cause): NgSetupDecision => ({
    accepted: false,
    node,
    name,
    cause,
    answer: ngSetupFailure(cause),
  });

  if (node === undefined) return refuse({ choice: 'misc', value: 'unspecified' });
  const tais = supportedTais(ieValue(ies, 'SupportedTAList') ?? []);
  const check = servedTaCheck(tais, context.network);
  if (!check.ok) return refuse(check.cause);

  const { identity, network } = context;
  return {
    accepted: true,
    node,
    name,
    supportedTais: tais,
    answer: ngSetupResponse({
      amfName: identity.name,
      servedGuamis: [{ gUAMI: guami(identity, network.plmn) }],
      relativeCapacity: identity.relativeCapacity,
      plmnSupport: plmnSupportList(network),
    }),
  };
}
