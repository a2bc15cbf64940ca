// 5GS tracking area identity (TS 24.501 9.11.3.8), its list (9.11.3.9) and the PLMN list (9.11.3.45).
import { invalid, octets } from '../ie-codec.ts';
import { decodePlmn, encodePlmn, type Plmn } from './digits.ts';

export interface Tai extends Plmn {
  /** Tracking area code, 24 bits. */
  tac: number;
}

function readTac(value: Uint8Array, offset: number): number {
  return ((value[offset] ?? 0) << 16) | ((value[offset + 1] ?? 0) << 8) | (value[offset + 2] ?? 0);
}

function tacOctets(tac: number): number[] {
  if (!Number.isInteger(tac) || tac < 0 || tac > 0xffffff) throw new RangeError(`TAC ${tac}`);
  return [tac >> 16, (tac >> 8) & 0xff, tac & 0xff];
}

export const tai = octets<Tai>(
  (value) =>
    value.length === 6 ? { ...decodePlmn(value), tac: readTac(value, 3) } : invalid('TAI is 6 octets'),
  (value) => Uint8Array.from([...encodePlmn(value), ...tacOctets(value.tac)]),
);

/** The three kinds of partial tracking area identity list of 9.11.3.9. */
export type PartialTaiList =
  | { type: 'non-consecutive-tacs'; plmn: Plmn; tacs: number[] }
  | { type: 'consecutive-tacs'; plmn: Plmn; firstTac: number; count: number }
  | { type: 'multiple-plmns'; tais: Tai[] };

const MAX_ELEMENTS = 16;

export const taiList = octets<PartialTaiList[]>(
  (value) => {
    const lists: PartialTaiList[] = [];
    let offset = 0;
    while (offset < value.length) {
      const head = value[offset] ?? 0;
      const type = (head >> 5) & 0x3;
      // The number of elements is coded as its value minus one.
      const count = (head & 0x1f) + 1;
      if (count > MAX_ELEMENTS) invalid(`partial list of ${count} elements`);
      offset += 1;
      const need = type === 0 ? 3 + 3 * count : type === 1 ? 6 : 6 * count;
      if (type === 3) invalid('partial tracking area identity list type 11 is reserved');
      if (offset + need > value.length) invalid('partial tracking area identity list runs past the IE');
      if (type === 0) {
        const plmn = decodePlmn(value, offset);
        const tacs = Array.from({ length: count }, (_, i) => readTac(value, offset + 3 + 3 * i));
        lists.push({ type: 'non-consecutive-tacs', plmn, tacs });
      } else if (type === 1) {
        lists.push({
          type: 'consecutive-tacs',
          plmn: decodePlmn(value, offset),
          firstTac: readTac(value, offset + 3),
          count,
        });
      } else {
        const tais = Array.from({ length: count }, (_, i) => ({
          ...decodePlmn(value, offset + 6 * i),
          tac: readTac(value, offset + 6 * i + 3),
        }));
        lists.push({ type: 'multiple-plmns', tais });
      }
      offset += need;
    }
    return lists;
  },
  (lists) =>
    Uint8Array.from(
      lists.flatMap((list) => {
        const head = (type: number, count: number): number => {
          if (count < 1 || count > MAX_ELEMENTS) throw new RangeError(`partial list of ${count} elements`);
          return (type << 5) | (count - 1);
        };
        switch (list.type) {
          case 'non-consecutive-tacs':
            return [head(0, list.tacs.length), ...encodePlmn(list.plmn), ...list.tacs.flatMap(tacOctets)];
          case 'consecutive-tacs':
            return [head(1, list.count), ...encodePlmn(list.plmn), ...tacOctets(list.firstTac)];
          case 'multiple-plmns':
            return [
              head(2, list.tais.length),
              ...list.tais.flatMap((t) => [...encodePlmn(t), ...tacOctets(t.tac)]),
            ];
        }
      }),
    ),
);

export const plmnList = octets<Plmn[]>(
  (value) => {
    if (value.length % 3 !== 0) invalid('PLMN list is a multiple of 3 octets');
    return Array.from({ length: value.length / 3 }, (_, i) => decodePlmn(value, 3 * i));
  },
  (list) => Uint8Array.from(list.flatMap((plmn) => [...encodePlmn(plmn)])),
);
