import type { FiveGmmMessage } from '../../nas/index.ts';
import {
  cpCauseLabel,
  decodeCpMessage,
  decodeRpMessage,
  decodeTpdu,
  PAYLOAD_CONTAINER_SMS,
  rpCauseLabel,
} from '../../sms/index.ts';

const CP_NAMES = { 'cp-data': 'CP-DATA', 'cp-ack': 'CP-ACK', 'cp-error': 'CP-ERROR' } as const;
const RP_NAMES = {
  'rp-data': 'RP-DATA',
  'rp-ack': 'RP-ACK',
  'rp-error': 'RP-ERROR',
  'rp-smma': 'RP-SMMA',
} as const;

/**
 * What a subscriber log of a UL or DL NAS Transport with an SMS container says of it (issue 35: the logs
 * name the short messages): `sms`, the messages inside each other (`CP-DATA, RP-DATA, SMS-SUBMIT`), and
 * `sms_cause`, the CP- or RP-cause of an error. Nothing for another payload; what does not decode is named
 * as far as it does.
 */
export function smsLogDetails(message: FiveGmmMessage): Record<string, string> {
  if (
    (message.messageType !== 'ulNasTransport' && message.messageType !== 'dlNasTransport') ||
    message.payloadContainerType !== PAYLOAD_CONTAINER_SMS
  )
    return {};
  const cp = decodeCpMessage(message.payloadContainer);
  if (!cp.ok) return { sms: `CP message not decoded (${cp.error})` };
  const names: string[] = [CP_NAMES[cp.value.type]];
  if (cp.value.type === 'cp-error') return { sms: names[0]!, sms_cause: cpCauseLabel(cp.value.cause) };
  if (cp.value.type !== 'cp-data') return { sms: names[0]! };
  const rp = decodeRpMessage(cp.value.rpdu);
  if (!rp.ok) return { sms: `${names[0]!}, RP message not decoded (${rp.error})` };
  names.push(RP_NAMES[rp.value.type]);
  const uplink = message.messageType === 'ulNasTransport';
  if (rp.value.type !== 'rp-smma' && rp.value.tpdu !== undefined) {
    const tpdu = decodeTpdu(rp.value.tpdu, uplink ? 'ms-to-sc' : 'sc-to-ms', rp.value.type);
    names.push(tpdu.ok ? tpdu.value.type.toUpperCase() : 'TPDU not decoded');
  }
  return {
    sms: names.join(', '),
    ...(rp.value.type === 'rp-error' ? { sms_cause: rpCauseLabel(rp.value.cause) } : {}),
  };
}
