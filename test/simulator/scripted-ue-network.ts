import type { NGAPPDU } from '../../src/network/ngap/generated/types.ts';
import { bits, plmnIdentity, tac } from '../../src/network/ngap/ngap-values.ts';
import { ieValue } from '../helpers/ie-value.ts';
import type { NetworkAction } from './fake-nas-amf.ts';
import { FakeNasAmf } from './fake-nas-amf.ts';
import type { AmfReceived, ScriptedAmf } from './scripted-amf.ts';

/**
 * The scripted AMF's UE-associated side for the simulator's tests: the AMF's NGAP messages towards UEs
 * (TS 38.413 9.2.2, 9.2.3, 9.2.4, 9.2.5) and a stand-in 5GMM network (fake-nas-amf.ts) per UE connection.
 */

type Subscribers = Record<string, { k: Buffer; opc: Buffer; sqn: Buffer }>;

const plmn = plmnIdentity('001', '01');

const ue = (value: object) => ({ choice: 'initiatingMessage', value }) as NGAPPDU;

export function downlinkNasTransport(amfUeNgapId: number, ranUeNgapId: number, nasPdu: Uint8Array): NGAPPDU {
  return ue({
    procedureCode: 4,
    name: 'DownlinkNASTransport',
    criticality: 'ignore',
    value: {
      protocolIEs: [
        { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: amfUeNgapId },
        { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ranUeNgapId },
        { id: 38, name: 'NAS-PDU', criticality: 'reject', value: nasPdu },
      ],
    },
  });
}

export function initialContextSetupRequest(
  amfUeNgapId: number,
  ranUeNgapId: number,
  kgnb: Buffer,
  nasPdu: Uint8Array,
) {
  return ue({
    procedureCode: 14,
    name: 'InitialContextSetup',
    criticality: 'reject',
    value: {
      protocolIEs: [
        { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: amfUeNgapId },
        { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ranUeNgapId },
        {
          id: 28,
          name: 'GUAMI',
          criticality: 'reject',
          value: {
            pLMNIdentity: plmn,
            aMFRegionID: bits(0xca, 8),
            aMFSetID: bits(0x3f5, 10),
            aMFPointer: bits(1, 6),
          },
        },
        {
          id: 0,
          name: 'AllowedNSSAI',
          criticality: 'reject',
          value: [{ sNSSAI: { sST: Uint8Array.of(1) } }],
        },
        {
          id: 119,
          name: 'UESecurityCapabilities',
          criticality: 'reject',
          value: {
            nRencryptionAlgorithms: bits(0xe000, 16),
            nRintegrityProtectionAlgorithms: bits(0xe000, 16),
            eUTRAencryptionAlgorithms: bits(0, 16),
            eUTRAintegrityProtectionAlgorithms: bits(0, 16),
          },
        },
        { id: 94, name: 'SecurityKey', criticality: 'reject', value: { bytes: kgnb, length: 256 } },
        { id: 38, name: 'NAS-PDU', criticality: 'ignore', value: nasPdu },
      ],
    },
  });
}

export function ueContextReleaseCommand(amfUeNgapId: number, ranUeNgapId: number): NGAPPDU {
  return ue({
    procedureCode: 41,
    name: 'UEContextRelease',
    criticality: 'reject',
    value: {
      protocolIEs: [
        {
          id: 114,
          name: 'UE-NGAP-IDs',
          criticality: 'reject',
          value: { choice: 'uE-NGAP-ID-pair', value: { aMFUENGAPID: amfUeNgapId, rANUENGAPID: ranUeNgapId } },
        },
        { id: 15, name: 'Cause', criticality: 'ignore', value: { choice: 'nas', value: 'normal-release' } },
      ],
    },
  });
}

export function paging(tmsi: number): NGAPPDU {
  return ue({
    procedureCode: 24,
    name: 'Paging',
    criticality: 'ignore',
    value: {
      protocolIEs: [
        {
          id: 115,
          name: 'UEPagingIdentity',
          criticality: 'ignore',
          value: {
            choice: 'fiveG-S-TMSI',
            value: {
              aMFSetID: bits(0x3f5, 10),
              aMFPointer: bits(1, 6),
              fiveGTMSI: Buffer.from([0, 0, tmsi >> 8, tmsi & 0xff]),
            },
          },
        },
        {
          id: 103,
          name: 'TAIListForPaging',
          criticality: 'ignore',
          value: [{ tAI: { pLMNIdentity: plmn, tAC: tac(1) } }],
        },
      ],
    },
  });
}

/**
 * The scripted AMF with a stand-in 5GMM network per UE connection: NAS out of Initial UE Message and
 * Uplink NAS Transport, the network's answers into Downlink NAS Transport, Initial Context Setup Request
 * and UE Context Release Command; a UE Context Release Request is granted (TS 38.413 8.3.2.2).
 */
export function attachNas(amf: ScriptedAmf, subscribers: Subscribers) {
  // RAN UE NGAP IDs are the gNB's own: connections are keyed by association and id.
  const key = (association: number, ranUeNgapId: number): string => `${association}/${ranUeNgapId}`;
  const networks = new Map<string, FakeNasAmf>();
  const byTmsi = new Map<number, FakeNasAmf>();
  const amfIds = new Map<string, number>();
  let nextAmfUeNgapId = 100;
  let nextTmsi = 0x1000;
  const act = (association: number, ranUeNgapId: number, network: FakeNasAmf, actions: NetworkAction[]) => {
    const amfUeNgapId = amfIds.get(key(association, ranUeNgapId)) ?? 0;
    for (const action of actions) {
      if (action.kind === 'nas')
        amf.send(association, downlinkNasTransport(amfUeNgapId, ranUeNgapId, action.pdu));
      else if (action.kind === 'context-setup')
        amf.send(association, initialContextSetupRequest(amfUeNgapId, ranUeNgapId, action.kgnb, action.pdu));
      else amf.send(association, ueContextReleaseCommand(amfUeNgapId, ranUeNgapId));
    }
    if (network.guti !== undefined) byTmsi.set(network.guti.tmsi, network);
  };
  amf.listeners.add((received: AmfReceived): void => {
    const pdu = received.pdu;
    if (pdu?.choice !== 'initiatingMessage') return;
    const message = pdu.value;
    if (message.name === 'InitialUEMessage') {
      const ies = message.value.protocolIEs;
      const ranUeNgapId = ieValue(ies, 'RAN-UE-NGAP-ID') ?? 0;
      const sTmsi = ieValue(ies, 'FiveG-S-TMSI');
      const known =
        sTmsi === undefined ? undefined : byTmsi.get(Buffer.from(sTmsi.fiveGTMSI).readUInt32BE(0));
      const network = known ?? new FakeNasAmf(subscribers, (nextTmsi += 0x100));
      networks.set(key(received.association, ranUeNgapId), network);
      amfIds.set(key(received.association, ranUeNgapId), nextAmfUeNgapId++);
      void network
        .uplink(ieValue(ies, 'NAS-PDU') ?? new Uint8Array(0))
        .then((actions) => act(received.association, ranUeNgapId, network, actions));
    } else if (message.name === 'UEContextReleaseRequest') {
      const ies = message.value.protocolIEs;
      const ranUeNgapId = ieValue(ies, 'RAN-UE-NGAP-ID') ?? 0;
      amf.send(
        received.association,
        ueContextReleaseCommand(amfIds.get(key(received.association, ranUeNgapId)) ?? 0, ranUeNgapId),
      );
    } else if (message.name === 'UplinkNASTransport') {
      const ies = message.value.protocolIEs;
      const ranUeNgapId = ieValue(ies, 'RAN-UE-NGAP-ID') ?? 0;
      const network = networks.get(key(received.association, ranUeNgapId));
      if (network === undefined) return;
      void network
        .uplink(ieValue(ies, 'NAS-PDU') ?? new Uint8Array(0))
        .then((actions) => act(received.association, ranUeNgapId, network, actions));
    }
  });
  return {
    amfUeNgapId: (association: number, ranUeNgapId: number) => amfIds.get(key(association, ranUeNgapId)),
  };
}
