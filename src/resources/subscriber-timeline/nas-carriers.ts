/**
 * Which NGAP radio event carried which subscriber log (network.md sections 3 and 4). Subscriber logs hold
 * the plain NAS message and the radio's name but no UE NGAP ids, so the only link the stored records
 * prove is the bytes: a log is linked to an event when the event's NAS-PDU carries the log's plain
 * message, in the same direction, through the same radio, within `CARRIER_WINDOW_MS`, and the pairing is
 * unambiguous both ways. A message ciphered with NEA1-3 shows no plain bytes, and identical messages of
 * two devices in the window (a Registration Complete under NEA0) cannot be told apart: those logs stay
 * without a carrier rather than being given a guessed one.
 */

/** How far apart a NAS message's log and its NGAP message's event may be recorded. */
export const CARRIER_WINDOW_MS = 2_000;

interface CarriedLog {
  id: number;
  timestamp: number;
  direction: string;
  radio: string | undefined;
  /** The plain NAS message as logged. */
  raw: Uint8Array;
}

export interface CarrierEvent {
  id: number;
  timestamp: number;
  direction: string;
  radio: string | undefined;
  /** The NAS-PDUs the NGAP message carries (NAS-PDU and PDU Session NAS-PDU IEs). */
  nasPdus: readonly Uint8Array[];
}

/** The 5GSM protocol discriminator (TS 24.007 11.2.3.1.1): such a message travels inside a 5GMM one. */
const FIVEGSM_EPD = 0x2e;
/** A security protected 5GMM message's header before the plain one (TS 24.501 9.1.1): 7 octets. */
const SECURITY_HEADER_LENGTH = 7;

function same(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

/**
 * True when the NAS-PDU is the plain message, or holds it in clear after a security header
 * (integrity protected, or ciphered with NEA0), or, for a 5GSM message, holds it inside the 5GMM
 * transport message that carries it (TS 24.501 8.2.10, 8.2.11).
 */
function nasPduCarries(nasPdu: Uint8Array, plain: Uint8Array): boolean {
  if (plain.length === 0) return false;
  if (same(nasPdu, plain)) return true;
  const protectedHeader = (nasPdu[1] ?? 0) & 0x0f;
  if (protectedHeader !== 0 && same(nasPdu.subarray(SECURITY_HEADER_LENGTH), plain)) return true;
  return plain[0] === FIVEGSM_EPD && Buffer.from(nasPdu).indexOf(plain) >= 0;
}

function carriedIn(event: CarrierEvent, log: CarriedLog): number {
  if (event.direction !== log.direction || log.radio === undefined || event.radio !== log.radio) return -1;
  return event.nasPdus.findIndex((pdu) => nasPduCarries(pdu, log.raw));
}

/** The first index of `sorted` (by timestamp) at or after `timestamp`. */
export function firstAtOrAfter(sorted: readonly { timestamp: number }[], timestamp: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as { timestamp: number }).timestamp < timestamp) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The carrier of each log that has exactly one candidate NAS-PDU, which no other of the logs claims
 * (one NGAP message may carry two NAS messages, each in its own NAS-PDU). `events` sorted by timestamp
 * must hold every event that could carry a log of the device, the other devices' ones too: a candidate
 * left out would make an ambiguous pairing look unique.
 */
export function linkCarriers(
  logs: readonly CarriedLog[],
  events: readonly CarrierEvent[],
): Map<number, number> {
  const candidates = new Map<number, { event: number; pdu: string }[]>();
  const claims = new Map<string, number>();
  for (const log of logs) {
    const found: { event: number; pdu: string }[] = [];
    for (let i = firstAtOrAfter(events, log.timestamp - CARRIER_WINDOW_MS); i < events.length; i++) {
      const event = events[i] as CarrierEvent;
      if (event.timestamp > log.timestamp + CARRIER_WINDOW_MS) break;
      const index = carriedIn(event, log);
      if (index >= 0) found.push({ event: event.id, pdu: `${event.id}/${index}` });
    }
    candidates.set(log.id, found);
    for (const { pdu } of found) claims.set(pdu, (claims.get(pdu) ?? 0) + 1);
  }
  const links = new Map<number, number>();
  for (const [logId, found] of candidates) {
    const [only] = found;
    if (found.length === 1 && only !== undefined && claims.get(only.pdu) === 1) links.set(logId, only.event);
  }
  return links;
}
