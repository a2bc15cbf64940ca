// The service's own splitter (src/network/sms/split.ts, pure and without Node APIs), so the count shown
// is the count POST /api/v1/sms stores: GSM 7-bit 160 septets or 153 per concatenated part, else UCS-2
// 70 or 67 units (TS 23.040 9.2.3.24.1, 8-bit reference as the service uses).
import { splitText } from '../../../src/network/sms/split.ts';

export type PartCount =
  { ok: true; parts: number; alphabet: 'GSM 7-bit' | 'UCS-2' } | { ok: false; error: string };

/** How many short messages `text` becomes, in which alphabet; an error past 255 parts. */
export function partCount(text: string): PartCount {
  if (text === '') return { ok: true, parts: 0, alphabet: 'GSM 7-bit' };
  // The reference only fills the header's octet; it changes neither the alphabet nor the cuts.
  const split = splitText(text, { reference: 0 });
  if (!split.ok) return { ok: false, error: split.error };
  return {
    ok: true,
    parts: split.value.parts.length,
    alphabet: split.value.alphabet === 'gsm7' ? 'GSM 7-bit' : 'UCS-2',
  };
}
