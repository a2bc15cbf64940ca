// A deliver_sm from the SMSC for one of our subscribers (SMPP v3.4 4.6) becomes a stored short message,
// delivered by the SMSF as the API's are (docs/sms.md, "SMSC link"): stored first, then the SMSF is told
// so a reachable recipient gets it at once and another at its return. The answer is the deliver_sm_resp
// command_status: ESME_ROK once stored; ESME_RINVDSTADR for a number that is no subscriber's;
// ESME_RINVSRCADR, ESME_RINVMSGLEN or ESME_RX_P_APPN for what cannot become an SMS-DELIVER; ESME_RX_T_APPN
// when the store fails, so that the SMSC tries again.

import type { Logger } from 'pino';
import type { Clock } from '../../clock.ts';
import type { SmsStore, SmsSubscribers, StoredAddress } from '../ports/sms-store.ts';
import {
  decodeDcs,
  decodeUserData,
  encodeDcs,
  encodeUserData,
  septetsToText,
  textToSeptets,
  TYPE_OF_NUMBER,
  type RawUserData,
  type SmsAlphabet,
} from '../sms/index.ts';
import { STATUS, type ShortMessage } from './pdu.ts';

/** E.164 digits as decisions 23 stores MSISDNs. */
const E164 = /^[1-9]\d{0,14}$/;
/** SMPP addr_ton (5.2.5): 5 is alphanumeric. */
const TON_ALPHANUMERIC = 5;
/** esm_class bit 6: the short message starts with a user data header (5.2.12). */
const ESM_UDHI = 0x40;

interface MtFromSmscDeps {
  store: SmsStore;
  subscribers: SmsSubscribers;
  clock: Clock;
  /** How long a message waits for its recipient (the SMSF's default validity). */
  validityMs: number;
  /** Tells the SMSF a message waits for `imsi` (as the API's send does). */
  queued: (imsi: string) => void;
  logger: Logger;
}

export function mtFromSmsc(deps: MtFromSmscDeps): (message: ShortMessage) => Promise<number> {
  return async (message) => {
    const to = message.destination.address.replace(/^\+/, '');
    if (message.destination.ton === TON_ALPHANUMERIC || !E164.test(to)) return STATUS.ESME_RINVDSTADR;
    const imsi = await deps.subscribers.imsiOf(to);
    if (imsi === undefined) return STATUS.ESME_RINVDSTADR;
    const originator = originatorOf(message.source);
    if (originator === undefined) return STATUS.ESME_RINVSRCADR;
    const content = userDataOf(message);
    if (!content.ok) {
      deps.logger.warn({ error: content.error }, 'SMSC link: a deliver_sm cannot become an SMS-DELIVER');
      return content.status;
    }
    const now = deps.clock.now();
    try {
      await deps.store.save({
        createdAt: now,
        originator,
        destinationImsi: imsi,
        destinationMsisdn: to,
        // An SMS-DELIVER carries no TP-MR; no status report goes back over SMPP.
        messageReference: 0,
        protocolIdentifier: message.protocolId,
        dataCodingScheme: content.dcs,
        userData: content.userData,
        statusReportRequested: false,
        validUntil: now + deps.validityMs,
      });
    } catch (error) {
      deps.logger.error({ err: error }, 'SMSC link: a message from the SMSC could not be stored');
      return STATUS.ESME_RX_T_APPN;
    }
    deps.queued(imsi);
    return STATUS.ESME_ROK;
  };
}

/** TP-OA from source_addr: alphanumeric text (TS 23.040 9.1.2.5: at most 11 GSM 7-bit characters) or digits. */
function originatorOf(source: ShortMessage['source']): StoredAddress | undefined {
  if (source.ton === TON_ALPHANUMERIC) {
    const septets = textToSeptets(source.address);
    if (source.address === '' || septets === undefined || septets.length > 11) return undefined;
    return { typeOfNumber: TYPE_OF_NUMBER.alphanumeric, value: source.address };
  }
  const digits = source.address.replace(/^\+/, '');
  if (!/^\d{1,20}$/.test(digits)) return undefined;
  const typeOfNumber =
    source.ton === 1
      ? TYPE_OF_NUMBER.international
      : source.ton === 2
        ? TYPE_OF_NUMBER.national
        : TYPE_OF_NUMBER.unknown;
  return { typeOfNumber, value: digits };
}

type Content =
  { ok: true; dcs: number; userData: RawUserData } | { ok: false; error: string; status: number };

/**
 * TP-DCS and TP-UD from data_coding (5.2.19) and short_message: 0 (the SMSC's default alphabet) is read
 * as GSM 7-bit, one septet per octet; 1 (IA5) and 3 (Latin-1) as text, sent as GSM 7-bit when every
 * character is in it, else UCS-2; 8 (UCS-2) and 2 or 4 (8-bit data) as octets. 0xF0-0xF7, "GSM message
 * class control", is the TS 23.038 octet of the group 1111: its class (bits 1-0) is kept, its content
 * read as 0 (bit 2 clear) or 4 (bit 2 set). Other codings are refused.
 */
function userDataOf(message: ShortMessage): Content {
  if ((message.dataCoding & 0xf8) === 0xf0)
    return userDataIn(message, message.dataCoding & 0x04 ? 4 : 0, message.dataCoding & 0x03);
  return userDataIn(message, message.dataCoding);
}

function userDataIn(message: ShortMessage, dataCoding: number, messageClass?: number): Content {
  const udhi = (message.esmClass & ESM_UDHI) !== 0;
  const bytes = message.message;
  const refuse = (error: string, status: number = STATUS.ESME_RX_P_APPN): Content => ({
    ok: false,
    error,
    status,
  });
  // The header's octets come first whatever the coding; read them as 8-bit user data does.
  const split = decodeUserData(
    { headerIndicator: udhi, length: bytes.length, bytes },
    decodeDcs(encodeDcs('8bit')),
  );
  if (!split.ok) return refuse(`user data header: ${split.error}`);
  const header = split.value.header;
  const body = split.value.data ?? new Uint8Array(0);
  let text: string;
  switch (dataCoding) {
    case 0:
      if (body.some((b) => b > 0x7f)) return refuse('data_coding 0 with an octet above 0x7F');
      text = septetsToText([...body]);
      break;
    case 1:
    case 3:
      text = Buffer.from(body).toString('latin1');
      break;
    case 8:
      if (body.length % 2 !== 0) return refuse('UCS-2 of an odd number of octets');
      // UTF-16 big-endian (TS 23.038 6.2.3) read through Node's little-endian decoder.
      text = Buffer.from(body).swap16().toString('utf16le');
      return encoded(encodeUserData({ ...(header ? { header } : {}), text }, 'ucs2'), 'ucs2', messageClass);
    case 2:
    case 4:
      return encoded(
        encodeUserData({ ...(header ? { header } : {}), data: body }, '8bit'),
        '8bit',
        messageClass,
      );
    default:
      return refuse(`data_coding ${message.dataCoding} not supported`);
  }
  const alphabet: SmsAlphabet = textToSeptets(text) === undefined ? 'ucs2' : 'gsm7';
  return encoded(encodeUserData({ ...(header ? { header } : {}), text }, alphabet), alphabet, messageClass);
}

function encoded(
  result: ReturnType<typeof encodeUserData>,
  alphabet: SmsAlphabet,
  messageClass?: number,
): Content {
  if (!result.ok) return { ok: false, error: result.error, status: STATUS.ESME_RINVMSGLEN };
  return { ok: true, dcs: encodeDcs(alphabet, messageClass), userData: result.value };
}
