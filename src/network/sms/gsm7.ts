// The GSM 7-bit default alphabet and its extension table (TS 23.038 6.2.1, 6.2.1.1) and the packing of
// septets into octets (TS 23.038 6.1.2.1.1: the first septet in the low bits of the first octet).

/** Table 6.2.1, by septet value; 0x1B is the escape to the extension table. */
const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const ESCAPE = 0x1b;
/** Table 6.2.1.1: the characters reached through the escape. */
const EXTENSION: ReadonlyMap<number, string> = new Map([
  [0x0a, '\f'],
  [0x14, '^'],
  [0x28, '{'],
  [0x29, '}'],
  [0x2f, '\\'],
  [0x3c, '['],
  [0x3d, '~'],
  [0x3e, ']'],
  [0x40, '|'],
  [0x65, '€'],
]);

const BASIC_CODE = new Map<string, number>();
for (let i = 0; i < BASIC.length; i++) if (i !== ESCAPE) BASIC_CODE.set(BASIC.charAt(i), i);
const EXTENSION_CODE = new Map<string, number>([...EXTENSION].map(([code, char]) => [char, code]));

/** The septets of `text` (two for an extension character), or undefined when a character has none. */
export function textToSeptets(text: string): number[] | undefined {
  const septets: number[] = [];
  for (const char of text) {
    const basic = BASIC_CODE.get(char);
    if (basic !== undefined) septets.push(basic);
    else {
      const extended = EXTENSION_CODE.get(char);
      if (extended === undefined) return undefined;
      septets.push(ESCAPE, extended);
    }
  }
  return septets;
}

/** How many septets one character takes (1 or 2), 0 when the alphabet lacks it. */
export function septetsOf(char: string): number {
  if (BASIC_CODE.has(char)) return 1;
  return EXTENSION_CODE.has(char) ? 2 : 0;
}

/**
 * The text of `septets`. An escape before a code the extension table lacks reads as that code's basic
 * character, and an escape before another escape (or at the end) as a space (TS 23.038 6.2.1.1).
 */
export function septetsToText(septets: readonly number[]): string {
  let text = '';
  for (let i = 0; i < septets.length; i++) {
    const septet = (septets[i] as number) & 0x7f;
    if (septet !== ESCAPE) {
      text += BASIC.charAt(septet);
      continue;
    }
    const next = septets[i + 1];
    if (next === undefined || (next & 0x7f) === ESCAPE) {
      text += ' ';
      if (next !== undefined) i++;
      continue;
    }
    text += EXTENSION.get(next & 0x7f) ?? BASIC.charAt(next & 0x7f);
    i++;
  }
  return text;
}

/** Writes `septets` into `out` starting at septet position `from` (bits before it left as they are). */
export function packSeptets(septets: readonly number[], out: Uint8Array, from = 0): void {
  septets.forEach((septet, i) => {
    const bit = (from + i) * 7;
    const octet = bit >> 3;
    const shift = bit & 7;
    out[octet] = (out[octet] as number) | ((septet << shift) & 0xff);
    if (shift > 1 && octet + 1 < out.length)
      out[octet + 1] = (out[octet + 1] as number) | (septet >> (8 - shift));
  });
}

/** Septets `from` to `to` (exclusive) of packed `bytes`; missing bits read as 0. */
export function unpackSeptets(bytes: Uint8Array, from: number, to: number): number[] {
  const septets: number[] = [];
  for (let i = from; i < to; i++) {
    const bit = i * 7;
    const octet = bit >> 3;
    const shift = bit & 7;
    let value = (bytes[octet] ?? 0) >> shift;
    if (shift > 1) value |= (bytes[octet + 1] ?? 0) << (8 - shift);
    septets.push(value & 0x7f);
  }
  return septets;
}

/** Octets that `septets` septets take once packed. */
export function packedLength(septets: number): number {
  return Math.ceil((septets * 7) / 8);
}
