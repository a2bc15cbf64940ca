import assert from 'node:assert/strict';
import type { NetworkFunctionsOptions } from '../../../src/core/network-functions.ts';
import type { NasMessage } from '../../../src/network/nas/index.ts';
import {
  decodeCpMessage,
  decodeDcs,
  decodeRpMessage,
  decodeTpdu,
  decodeUserData,
  encodeCpMessage,
  encodeRpMessage,
  encodeTpdu,
  encodeUserData,
  PAYLOAD_CONTAINER_SMS,
  type CpMessage,
  type RpMessage,
  type SmsSubmit,
  type Tpdu,
} from '../../../src/network/sms/index.ts';
import { memorySmsStore, memorySmsSubscribers } from '../../helpers/memory-sms-store.ts';
import { answered, register, settle, type Ids } from './amf-steps.ts';
import { ngSetupRequest } from './messages.ts';
import {
  createAmfHarness,
  IMSI,
  subscription,
  TestUe,
  uplinkNasTransport,
  type AmfHarness,
} from './test-ue.ts';
import type { TestRadio } from './n2-harness.ts';

export const IMSI_B = '001010000000002';
export const MSISDN_A = '15550000001';
export const MSISDN_B = '15550000002';

/** The AMF harness with an SMSF over in-memory ports: IMSI (MSISDN_A) and IMSI_B (MSISDN_B), SMS allowed. */
export async function smsHarness(
  extra: { smsc?: (store: ReturnType<typeof memorySmsStore>) => SmscOption } = {},
): Promise<
  AmfHarness & { store: ReturnType<typeof memorySmsStore>; smsData: ReturnType<typeof memorySmsSubscribers> }
> {
  const store = memorySmsStore();
  const smsData = memorySmsSubscribers({
    [IMSI]: { msisdn: MSISDN_A, smsAllowed: true },
    [IMSI_B]: { msisdn: MSISDN_B, smsAllowed: true },
  });
  const smsc = extra.smsc?.(store);
  const h = await createAmfHarness(
    {},
    {},
    { sms: { store, subscribers: smsData, ...(smsc === undefined ? {} : { smsc }) } },
  );
  h.subscribers.set(IMSI_B, { sqn: 0n });
  h.subscriptions.set(IMSI_B, subscription(IMSI_B));
  return Object.assign(h, { store, smsData });
}

/** The SMSC link the SMSF is built with (core/network-functions.ts). */
type SmscOption = NonNullable<NonNullable<NetworkFunctionsOptions['sms']>['smsc']>;

/**
 * A device of the SMS tests: a TestUe that asks for SMS over NAS, on a radio of its own (so that what
 * the AMF sends it is opened with its own security context), and how much of that radio's traffic it read.
 */
export interface SmsUe {
  ue: TestUe;
  ids: Ids;
  radio: TestRadio;
  read: number;
}

/** Registration Request asking for SMS over NAS: 5GS update type with "SMS requested" (TS 24.501 9.11.3.9A). */
export const smsRegistration = (ue: TestUe) =>
  ue.registrationRequest({ fiveGsUpdateType: Uint8Array.of(0x01) });

/** Registers `imsi` over a radio of its own (gNB id `gnbId`) asking for SMS over NAS; with the Accept's SMS allowed bit. */
export async function registerForSms(
  h: AmfHarness,
  imsi: string,
  gnbId: number,
): Promise<SmsUe & { smsAllowed: boolean }> {
  const radio = await h.connect();
  radio.send(ngSetupRequest({ name: `gnb-${gnbId}`, gnbId }));
  await h.settled();
  const ue = new TestUe({ imsi, ranUeNgapId: gnbId });
  const { ids, accept } = await register(h, radio, ue, smsRegistration(ue));
  const message = accept.nas[0];
  assert.ok(message?.messageType === 'registrationAccept');
  return { ue, ids, radio, read: radio.received.length, smsAllowed: message.registrationResult.smsAllowed };
}

/** The CP messages the AMF sent `device` since it last read, decoded (DL NAS Transport, payload container type SMS). */
export function inbox(device: SmsUe): CpMessage[] {
  const { nas } = answered(device.radio, device.ue, device.read);
  device.read = device.radio.received.length;
  return cpMessagesOf(nas);
}

/** UL NAS Transport with payload container type SMS carrying `container` (TS 24.501 8.2.10); the CP messages back. */
export async function sendSms(h: AmfHarness, device: SmsUe, container: Uint8Array): Promise<CpMessage[]> {
  inbox(device);
  device.radio.send(
    uplinkNasTransport(
      device.ids,
      device.ue.protect({
        messageType: 'ulNasTransport',
        payloadContainerType: PAYLOAD_CONTAINER_SMS,
        payloadContainer: container,
      }),
    ),
    1,
  );
  await settle(h);
  return inbox(device);
}

/** The CP messages in the DL NAS Transports (payload container type SMS) among `nas`, decoded. */
export function cpMessagesOf(nas: NasMessage[]): CpMessage[] {
  return nas
    .filter((m) => m.messageType === 'dlNasTransport' && m.payloadContainerType === PAYLOAD_CONTAINER_SMS)
    .map((m) => {
      assert.ok(m.messageType === 'dlNasTransport');
      const cp = decodeCpMessage(m.payloadContainer);
      assert.ok(cp.ok, cp.ok ? '' : cp.error);
      return cp.value;
    });
}

/** The RP message inside a CP-DATA the network sent. */
export function rpOf(cp: CpMessage | undefined): RpMessage {
  assert.ok(cp?.type === 'cp-data', `CP-DATA expected, got ${cp?.type}`);
  const rp = decodeRpMessage(cp.rpdu);
  assert.ok(rp.ok, rp.ok ? '' : rp.error);
  return rp.value;
}

/** The TPDU inside an RP message the network sent (SMS-DELIVER or SMS-STATUS-REPORT in RP-DATA, reports in RP-ACK/RP-ERROR). */
export function tpduOf(rp: RpMessage): Tpdu {
  assert.ok(rp.type !== 'rp-smma' && rp.tpdu !== undefined, 'an RP message with a TPDU');
  const tpdu = decodeTpdu(rp.tpdu, 'sc-to-ms', rp.type);
  assert.ok(tpdu.ok, tpdu.ok ? '' : tpdu.error);
  return tpdu.value;
}

/** The text of an SMS-DELIVER. */
export function textOf(tpdu: Tpdu): string | undefined {
  assert.ok(tpdu.type === 'sms-deliver');
  const content = decodeUserData(tpdu.userData, decodeDcs(tpdu.dataCodingScheme));
  assert.ok(content.ok);
  return content.value.text;
}

/** SMS-SUBMIT of GSM 7-bit `text` to `destination` (international digits). */
export function smsSubmit(destination: string, text: string, overrides: Partial<SmsSubmit> = {}): SmsSubmit {
  const userData = encodeUserData({ text }, 'gsm7');
  assert.ok(userData.ok);
  return {
    type: 'sms-submit',
    rejectDuplicates: false,
    replyPath: false,
    statusReportRequest: false,
    messageReference: 7,
    destination: { typeOfNumber: 1, numberingPlan: 1, value: destination },
    protocolIdentifier: 0,
    dataCodingScheme: 0,
    userData: userData.value,
    ...overrides,
  };
}

/** CP-DATA (TI `ti`, the UE's) with RP-DATA (reference `reference`) carrying `tpdu` bytes. */
export function moCpData(ti: number, reference: number, tpdu: Uint8Array | Tpdu): Uint8Array {
  const bytes = tpdu instanceof Uint8Array ? tpdu : encodeTpdu(tpdu);
  const rpdu = encodeRpMessage({
    type: 'rp-data',
    direction: 'ms-to-network',
    messageReference: reference,
    destination: { typeOfNumber: 1, numberingPlan: 1, value: '0' },
    tpdu: bytes,
  });
  return encodeCpMessage({ type: 'cp-data', transactionId: ti, tiFlag: false, rpdu });
}

/** CP-ACK from the UE: `mine` for a transfer the UE started (TI flag 0), else the network's (TI flag 1). */
export const cpAck = (ti: number, mine: boolean): Uint8Array =>
  encodeCpMessage({ type: 'cp-ack', transactionId: ti, tiFlag: !mine });

/** CP-DATA from the UE on the network's transfer `ti`, carrying its RP-ACK (with an SMS-DELIVER-REPORT) to `reference`. */
export function mtRpAck(ti: number, reference: number): Uint8Array {
  const rpdu = encodeRpMessage({
    type: 'rp-ack',
    direction: 'ms-to-network',
    messageReference: reference,
    tpdu: encodeTpdu({ type: 'sms-deliver-report' }),
  });
  return encodeCpMessage({ type: 'cp-data', transactionId: ti, tiFlag: true, rpdu });
}

/** CP-DATA from the UE on the network's transfer `ti`, carrying RP-ERROR `cause`. */
export function mtRpError(ti: number, reference: number, cause: number): Uint8Array {
  const rpdu = encodeRpMessage({
    type: 'rp-error',
    direction: 'ms-to-network',
    messageReference: reference,
    cause,
  });
  return encodeCpMessage({ type: 'cp-data', transactionId: ti, tiFlag: true, rpdu });
}
