// Text to the fewest short messages (TS 23.040 9.2.3.24.1 concatenation): the GSM 7-bit default alphabet
// when every character is in it or its extension table, else UCS-2. One part holds 160 septets or 70
// UCS-2 code units; a concatenated part loses the header's room (6 octets with an 8-bit reference, 7 with
// a 16-bit one). An escape pair and a UTF-16 surrogate pair never straddle two parts.
import type { SmsAlphabet } from './dcs.ts';
import { septetsOf } from './gsm7.ts';
import { fail, ok, type SmsDecodeResult } from './result.ts';
import {
  concatenationIe,
  encodeUserData,
  headerSeptets,
  MAX_USER_DATA_OCTETS,
  MAX_USER_DATA_SEPTETS,
  type RawUserData,
} from './user-data.ts';

export interface SplitOptions {
  /** The concatenation reference the caller allocated for this message (per destination). */
  reference: number;
  /** 8 (IEI 0x00, the default) or 16 (IEI 0x08). */
  referenceBits?: 8 | 16;
}

export interface SplitMessage {
  alphabet: SmsAlphabet;
  /** Each part's text and its user data (TP-UDHI, TP-UDL, TP-UD) ready for a TPDU. */
  parts: { text: string; userData: RawUserData }[];
}

/** TS 23.040 9.2.3.24.1: the sequence number is one octet, so at most 255 parts. */
export const MAX_PARTS = 255;

function gsm7Units(text: string): number[] | undefined {
  const units: number[] = [];
  for (const char of text) {
    const septets = septetsOf(char);
    if (septets === 0) return undefined;
    units.push(septets);
  }
  return units;
}

/** Cuts `chars` into runs whose summed `sizes` stay within `room`. */
function cut(chars: readonly string[], sizes: readonly number[], room: number): string[] {
  const runs: string[] = [];
  let run = '';
  let used = 0;
  chars.forEach((char, i) => {
    const size = sizes[i] as number;
    if (used + size > room) {
      runs.push(run);
      run = '';
      used = 0;
    }
    run += char;
    used += size;
  });
  if (run !== '' || runs.length === 0) runs.push(run);
  return runs;
}

/** The parts of `text`; fails when it needs more than 255 parts. */
export function splitText(text: string, options: SplitOptions): SmsDecodeResult<SplitMessage> {
  const referenceBits = options.referenceBits ?? 8;
  const headerLength = referenceBits === 8 ? 6 : 7;
  const chars = [...text];
  const gsm = gsm7Units(text);
  const alphabet: SmsAlphabet = gsm === undefined ? 'ucs2' : 'gsm7';
  // Sizes in septets (GSM 7-bit) or octets (UCS-2: two per UTF-16 code unit).
  const sizes = gsm ?? chars.map((char) => char.length * 2);
  const single = alphabet === 'gsm7' ? MAX_USER_DATA_SEPTETS : MAX_USER_DATA_OCTETS;
  const total = sizes.reduce((sum, size) => sum + size, 0);
  let runs: string[];
  if (total <= single) runs = [text];
  else {
    const room =
      alphabet === 'gsm7'
        ? MAX_USER_DATA_SEPTETS - headerSeptets(headerLength)
        : MAX_USER_DATA_OCTETS - headerLength;
    // UCS-2 room rounds down to whole code units.
    runs = cut(chars, sizes, alphabet === 'ucs2' ? room - (room % 2) : room);
    if (runs.length > MAX_PARTS) return fail(`text needs ${runs.length} parts, more than ${MAX_PARTS}`);
  }
  const parts: SplitMessage['parts'] = [];
  for (const [i, run] of runs.entries()) {
    const header =
      runs.length === 1
        ? undefined
        : [
            concatenationIe({
              reference: options.reference,
              referenceBits,
              total: runs.length,
              sequence: i + 1,
            }),
          ];
    const userData = encodeUserData({ ...(header ? { header } : {}), text: run }, alphabet);
    if (!userData.ok) return userData;
    parts.push({ text: run, userData: userData.value });
  }
  return ok({ alphabet, parts });
}
