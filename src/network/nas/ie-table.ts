// A message definition is the table of TS 24.501 section 8: for each IE its IEI, presence (M/O/C),
// format (V, LV, LV-E, TV, TLV, TLV-E; TS 24.007 11.2.1.1) and length in octets as the table gives
// it (the whole IE, IEI and length field included). The helpers below turn a row into an entry the
// generic message codec reads; the TypeScript type of a message's values is derived from its table.
import type { HalfOctetCodec, IeCodec, OctetsCodec } from './ie-codec.ts';

type Format = 'V' | 'LV' | 'LV-E' | 'TV' | 'TLV' | 'TLV-E';

/** Octets a format adds around the value: IEI and length field. */
const OVERHEAD: Record<Format, number> = { V: 0, LV: 1, 'LV-E': 2, TV: 1, TLV: 2, 'TLV-E': 3 };

interface EntryBase<K extends string, V> {
  key: K;
  format: Format;
  /** A half-octet (type 1) IE. */
  half: boolean;
  /** Bounds of the value part, in octets (from the table's length column). */
  min: number;
  max: number;
  codec: IeCodec<V>;
}

interface MandatoryEntry<K extends string, V> extends EntryBase<K, V> {
  presence: 'M';
}

export interface OptionalEntry<K extends string, V, P extends 'O' | 'C' = 'O' | 'C'> extends EntryBase<K, V> {
  presence: P;
  /** The full IEI, or for a half-octet TV IE the value of bits 8-5. */
  iei: number;
}

/** A spare half octet of the mandatory part (encoded 0000, ignored on receipt). */
interface SpareHalfOctet {
  presence: 'spare';
  key: null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- entries of every value type share one table
export type AnyEntry = MandatoryEntry<string, any> | OptionalEntry<string, any> | SpareHalfOctet;

function bounds(format: Format, min: number, max: number): { min: number; max: number } {
  return { min: min - OVERHEAD[format], max: max - OVERHEAD[format] };
}

/** "n" in a length column: no upper bound but the message's own. */
export const N = Number.POSITIVE_INFINITY;

export const spareHalfOctet: SpareHalfOctet = { presence: 'spare', key: null };

/** Mandatory, format V, 1/2 octet. */
export function vHalf<K extends string, V>(key: K, codec: HalfOctetCodec<V>): MandatoryEntry<K, V> {
  return { key, presence: 'M', format: 'V', half: true, min: 0, max: 0, codec };
}

/** Mandatory, format V, of `length` octets. */
export function v<K extends string, V>(key: K, length: number, codec: OctetsCodec<V>): MandatoryEntry<K, V> {
  return { key, presence: 'M', format: 'V', half: false, min: length, max: length, codec };
}

export function lv<K extends string, V>(
  key: K,
  min: number,
  max: number,
  codec: OctetsCodec<V>,
): MandatoryEntry<K, V> {
  return { key, presence: 'M', format: 'LV', half: false, ...bounds('LV', min, max), codec };
}

export function lvE<K extends string, V>(
  key: K,
  min: number,
  max: number,
  codec: OctetsCodec<V>,
): MandatoryEntry<K, V> {
  return { key, presence: 'M', format: 'LV-E', half: false, ...bounds('LV-E', min, max), codec };
}

/** Optional, format TV, 1 octet: the IEI in bits 8-5 (`iei` is that nibble), the value in bits 4-1. */
export function tvHalf<K extends string, V>(
  iei: number,
  key: K,
  codec: HalfOctetCodec<V>,
): OptionalEntry<K, V, 'O'> {
  return { key, presence: 'O', iei, format: 'TV', half: true, min: 0, max: 0, codec };
}

export function tv<K extends string, V>(
  iei: number,
  key: K,
  length: number,
  codec: OctetsCodec<V>,
): OptionalEntry<K, V, 'O'> {
  return { key, presence: 'O', iei, format: 'TV', half: false, ...bounds('TV', length, length), codec };
}

export function tlv<K extends string, V>(
  iei: number,
  key: K,
  min: number,
  max: number,
  codec: OctetsCodec<V>,
): OptionalEntry<K, V, 'O'> {
  return { key, presence: 'O', iei, format: 'TLV', half: false, ...bounds('TLV', min, max), codec };
}

export function tlvE<K extends string, V>(
  iei: number,
  key: K,
  min: number,
  max: number,
  codec: OctetsCodec<V>,
): OptionalEntry<K, V, 'O'> {
  return { key, presence: 'O', iei, format: 'TLV-E', half: false, ...bounds('TLV-E', min, max), codec };
}

/** Marks an optional row as conditional (C): decoded and encoded like O; its condition is the procedure's. */
export function conditional<K extends string, V>(entry: OptionalEntry<K, V, 'O'>): OptionalEntry<K, V, 'C'> {
  return { ...entry, presence: 'C' };
}

export interface MessageDefinition<I extends readonly AnyEntry[] = readonly AnyEntry[]> {
  /** The message type octet (TS 24.501 9.7). */
  type: number;
  /** TS 24.501's name in title case, as the subscriber logs show it (network.md section 4). */
  title: string;
  ies: I;
}

export function message<const I extends readonly AnyEntry[]>(
  type: number,
  title: string,
  ies: I,
): MessageDefinition<I> {
  return { type, title, ies };
}

type ValueOf<E> = E extends { codec: IeCodec<infer V> } ? V : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The values of a message's IEs: mandatory ones required, optional and conditional ones optional. */
export type IesOf<I extends readonly AnyEntry[]> = Simplify<
  { [E in I[number] as E extends { presence: 'M'; key: infer K extends string } ? K : never]: ValueOf<E> } & {
    [
      E in I[number] as E extends { presence: 'O' | 'C'; key: infer K extends string } ? K : never
    ]?: ValueOf<E>;
  }
>;
