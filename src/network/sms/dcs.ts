// TP-DCS, the SMS data coding scheme (TS 23.038 4): which alphabet the user data is in, whether it is
// compressed, its message class and the message waiting indication groups.

export type SmsAlphabet = 'gsm7' | '8bit' | 'ucs2';

export interface DataCoding {
  alphabet: SmsAlphabet;
  /** Compressed (TS 23.042): the text cannot be read without decompressing, which is not built. */
  compressed: boolean;
  /** Message class 0-3 when the scheme gives one. */
  messageClass?: number;
  /** Coding group 01xx: delete the message once read. */
  autoDelete: boolean;
  /** Coding groups 1100-1110: the indication and whether the message is stored or discarded. */
  messageWaiting?: { store: boolean; active: boolean; indication: number };
}

const ALPHABETS: readonly SmsAlphabet[] = ['gsm7', '8bit', 'ucs2', 'gsm7'];

/**
 * The coding a TP-DCS octet gives. Never fails: the reserved codings read as the GSM 7-bit default
 * alphabet, as TS 23.038 4 says ("Any reserved codings shall be assumed to be the GSM 7 bit default
 * alphabet").
 */
export function decodeDcs(octet: number): DataCoding {
  const group = octet >> 4;
  if (group <= 0x7) {
    return {
      // Alphabet 11 is reserved: GSM 7-bit.
      alphabet: ALPHABETS[(octet >> 2) & 0x3] as SmsAlphabet,
      compressed: (octet & 0x20) !== 0,
      ...(octet & 0x10 ? { messageClass: octet & 0x3 } : {}),
      autoDelete: (octet & 0x40) !== 0,
    };
  }
  if (group >= 0xc && group <= 0xe) {
    return {
      alphabet: group === 0xe ? 'ucs2' : 'gsm7',
      compressed: false,
      autoDelete: false,
      messageWaiting: { store: group !== 0xc, active: (octet & 0x08) !== 0, indication: octet & 0x3 },
    };
  }
  if (group === 0xf) {
    return {
      alphabet: octet & 0x04 ? '8bit' : 'gsm7',
      compressed: false,
      messageClass: octet & 0x3,
      autoDelete: false,
    };
  }
  return { alphabet: 'gsm7', compressed: false, autoDelete: false };
}

/** A general data coding TP-DCS (group 00): uncompressed `alphabet`, with a message class if given. */
export function encodeDcs(alphabet: SmsAlphabet, messageClass?: number): number {
  const code = { gsm7: 0, '8bit': 1, ucs2: 2 }[alphabet] << 2;
  if (messageClass === undefined) return code;
  if (!Number.isInteger(messageClass) || messageClass < 0 || messageClass > 3)
    throw new RangeError(`message class ${messageClass}`);
  return code | 0x10 | messageClass;
}
