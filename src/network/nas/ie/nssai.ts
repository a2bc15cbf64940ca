// S-NSSAI (TS 24.501 9.11.2.8), NSSAI (9.11.3.37) and rejected NSSAI (9.11.3.46).
import { checkRange, invalid, octets } from '../ie-codec.ts';

export interface SNssai {
  sst: number;
  /** Slice differentiator, 24 bits. */
  sd?: number;
  mappedHplmnSst?: number;
  mappedHplmnSd?: number;
}

function readSd(value: Uint8Array, offset: number): number {
  return ((value[offset] ?? 0) << 16) | ((value[offset + 1] ?? 0) << 8) | (value[offset + 2] ?? 0);
}

function sdOctets(sd: number): number[] {
  checkRange(sd, 0, 0xffffff);
  return [sd >> 16, (sd >> 8) & 0xff, sd & 0xff];
}

// The value lengths 9.11.2.8 allows: SST; SST + mapped SST; SST + SD; SST + SD + mapped SST;
// SST + SD + mapped SST + mapped SD.
function decodeSNssaiValue(value: Uint8Array): SNssai {
  const sst = value[0] ?? 0;
  switch (value.length) {
    case 1:
      return { sst };
    case 2:
      return { sst, mappedHplmnSst: value[1] ?? 0 };
    case 4:
      return { sst, sd: readSd(value, 1) };
    case 5:
      return { sst, sd: readSd(value, 1), mappedHplmnSst: value[4] ?? 0 };
    case 8:
      return { sst, sd: readSd(value, 1), mappedHplmnSst: value[4] ?? 0, mappedHplmnSd: readSd(value, 5) };
    default:
      return invalid(`S-NSSAI of ${value.length} octets`);
  }
}

function encodeSNssaiValue(s: SNssai): Uint8Array {
  const out = [checkRange(s.sst, 0, 0xff)];
  if (s.sd !== undefined) out.push(...sdOctets(s.sd));
  if (s.mappedHplmnSst !== undefined) out.push(checkRange(s.mappedHplmnSst, 0, 0xff));
  if (s.mappedHplmnSd !== undefined) {
    if (s.sd === undefined || s.mappedHplmnSst === undefined)
      throw new RangeError('mapped SD needs SD and mapped SST');
    out.push(...sdOctets(s.mappedHplmnSd));
  }
  return Uint8Array.from(out);
}

export const sNssai = octets(decodeSNssaiValue, encodeSNssaiValue);

/** A list of S-NSSAI values, each as an LV (9.11.3.37). */
export const nssai = octets<SNssai[]>(
  (value) => {
    const list: SNssai[] = [];
    let offset = 0;
    while (offset < value.length) {
      const length = value[offset] ?? 0;
      if (offset + 1 + length > value.length) invalid('S-NSSAI runs past the NSSAI');
      list.push(decodeSNssaiValue(value.subarray(offset + 1, offset + 1 + length)));
      offset += 1 + length;
    }
    return list;
  },
  (list) => {
    const parts = list.map(encodeSNssaiValue);
    return Buffer.concat(parts.flatMap((part) => [Uint8Array.of(part.length), part]));
  },
);

export interface RejectedSNssai {
  /** Cause value of 9.11.3.46: 0 not available in the current PLMN or SNPN, 1 in the registration area, 2 NSSAA failed, 3 maximum number of UEs reached. */
  cause: number;
  sst: number;
  sd?: number;
}

/** Rejected S-NSSAIs, each with its length (bits 8-5) and cause (bits 4-1) in one octet. */
export const rejectedNssai = octets<RejectedSNssai[]>(
  (value) => {
    const list: RejectedSNssai[] = [];
    let offset = 0;
    while (offset < value.length) {
      const head = value[offset] ?? 0;
      const length = head >> 4;
      if (length !== 1 && length !== 4) invalid(`rejected S-NSSAI of ${length} octets`);
      if (offset + 1 + length > value.length) invalid('rejected S-NSSAI runs past the list');
      const sst = value[offset + 1] ?? 0;
      list.push(
        length === 4 ? { cause: head & 0xf, sst, sd: readSd(value, offset + 2) } : { cause: head & 0xf, sst },
      );
      offset += 1 + length;
    }
    return list;
  },
  (list) =>
    Uint8Array.from(
      list.flatMap((s) => {
        const body = s.sd === undefined ? [s.sst] : [s.sst, ...sdOctets(s.sd)];
        return [(body.length << 4) | checkRange(s.cause, 0, 0xf), ...body];
      }),
    ),
);
