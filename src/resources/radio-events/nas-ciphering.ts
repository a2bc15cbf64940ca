import { decodeNgapPdu } from '../../network/ngap/ngap-codec.ts';
import { protocolIes } from '../../network/ngap/ue-ngap-ids.ts';

/**
 * What the pcapng export does with the ciphered NAS inside NGAP (issue 32 item 4: "decrypted where the
 * core knows NEA0; otherwise marked"). A NAS-PDU's security header type (TS 24.501 9.3.1) says whether
 * it is ciphered; the algorithm is the one the UE's last Security Mode Command selected (9.11.3.34),
 * which travels integrity protected but not ciphered (5.4.2.2), so the export reads it as it goes.
 * NEA0 is the identity (TS 33.501 D.1): such a NAS-PDU is written with the security header type of
 * the same protection without ciphering, so that Wireshark decodes the message with no preference set;
 * anything else is left as sent and marked with a packet comment.
 */

/** 5GMM extended protocol discriminator (TS 24.007 11.2.3.1.1): security protected NAS is 5GMM. */
const FIVEGMM_EPD = 0x7e;
/** TS 24.501 9.3.1: security header types. */
const CIPHERED = 2;
const CIPHERED_NEW_CONTEXT = 4;
const NEW_CONTEXT = 3;
/** The security header before the plain message: EPD, header type, MAC (4), sequence number. */
const SECURITY_HEADER_LENGTH = 7;
const SECURITY_MODE_COMMAND = 0x5d;
const NEA0 = 0;

/** Messages that may carry a NAS-PDU (TS 38.413 9.2): only these are decoded, the others pass as is. */
const NAS_CARRIERS = new Set([
  'InitialUEMessage',
  'UplinkNASTransport',
  'DownlinkNASTransport',
  'NASNonDeliveryIndication',
  'RerouteNASRequest',
  'InitialContextSetupRequest',
  'PDUSessionResourceSetupRequest',
  'PDUSessionResourceModifyRequest',
  'PDUSessionResourceReleaseCommand',
]);

/** The NAS-PDUs of a decoded PDU: NAS-PDU IEs and those of PDU session items (9.3.1.* lists). */
function nasPdusOf(raw: Uint8Array): Uint8Array[] {
  const decoded = decodeNgapPdu(raw);
  if (!decoded.ok) return [];
  const found: Uint8Array[] = [];
  for (const ie of protocolIes(decoded.value)) {
    if (ie.name === 'NAS-PDU' && ie.value instanceof Uint8Array) found.push(ie.value);
    else if (Array.isArray(ie.value)) {
      for (const item of ie.value as unknown[]) {
        const nas =
          (item as { pDUSessionNASPDU?: unknown; nASPDU?: unknown } | null)?.pDUSessionNASPDU ??
          (item as { nASPDU?: unknown } | null)?.nASPDU;
        if (nas instanceof Uint8Array) found.push(nas);
      }
    }
  }
  return found;
}

/** The ciphering algorithm a Security Mode Command selects (9.11.3.34: bits 8-5), else undefined. */
function selectedCiphering(nas: Uint8Array): number | undefined {
  if (nas[0] !== FIVEGMM_EPD || ((nas[1] ?? 0) & 0x0f) !== NEW_CONTEXT) return undefined;
  const plain = nas.subarray(SECURITY_HEADER_LENGTH);
  if (plain[0] !== FIVEGMM_EPD || plain[2] !== SECURITY_MODE_COMMAND || plain.length < 4) return undefined;
  return (plain[3] as number) >> 4;
}

interface CaptureNas {
  /** The NGAP PDU to write: the stored one, or a copy with NEA0's NAS-PDUs written unciphered. */
  raw: Uint8Array;
  /** The packet comment, when a NAS-PDU inside is ciphered. */
  comment: string | undefined;
}

/**
 * Reads the radio events of one export in order: `ue` holds the keys of the UE a message belongs to, most
 * specific first (its IMSI, its association); a Security Mode Command sets the algorithm under each key,
 * and a ciphered NAS-PDU after it takes the algorithm of the first key that has one.
 */
export function createNasCiphering() {
  const algorithms = new Map<string, number>();

  return {
    prepare(messageType: string, raw: Uint8Array, ue: readonly string[]): CaptureNas {
      if (!NAS_CARRIERS.has(messageType)) return { raw, comment: undefined };
      let written = raw;
      const comments: string[] = [];
      for (const nas of nasPdusOf(raw)) {
        const selected = selectedCiphering(nas);
        if (selected !== undefined) for (const key of ue) algorithms.set(key, selected);
        const header = (nas[1] ?? 0) & 0x0f;
        if (nas[0] !== FIVEGMM_EPD || (header !== CIPHERED && header !== CIPHERED_NEW_CONTEXT)) continue;
        const algorithm = ue.map((key) => algorithms.get(key)).find((found) => found !== undefined);
        if (algorithm === NEA0) {
          // The NAS-PDU's octets are the open type's contents: found as they are in the PDU.
          const at = Buffer.from(written.buffer, written.byteOffset, written.length).indexOf(nas);
          if (at < 0) continue;
          if (written === raw) written = Uint8Array.from(raw);
          written[at + 1] = ((nas[1] as number) & 0xf0) | (header - 1);
          comments.push(
            `NAS-PDU ciphered with NEA0 (null ciphering): written with security header type ${header - 1} ` +
              `in place of ${header} so that it decodes, its other octets as sent`,
          );
        } else if (algorithm !== undefined) {
          comments.push(`NAS-PDU ciphered with NEA${algorithm}: not decrypted`);
        } else {
          comments.push(
            'NAS-PDU ciphered: not decrypted (the Security Mode Command naming its algorithm is not in this capture)',
          );
        }
      }
      return { raw: written, comment: comments.length === 0 ? undefined : comments.join('. ') };
    },
  };
}
