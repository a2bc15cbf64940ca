// The two shapes an information element's value codec takes (TS 24.007 11.2.1): a value of whole
// octets (formats V, LV, LV-E, TV, TLV, TLV-E carry it after their IEI and length), or a half octet
// (type 1 IEs: format V 1/2, or TV 1 with the IEI in bits 8-5).

/** Thrown inside the codec only, by a value decoder that meets bytes its IE cannot hold. */
export class InvalidIeValue extends Error {}

/** Fails the IE being decoded; the message codec turns this into an error value. */
export function invalid(detail: string): never {
  throw new InvalidIeValue(detail);
}

export interface OctetsCodec<V> {
  readonly kind: 'octets';
  /** Decodes the value part of the IE (no IEI, no length). May throw InvalidIeValue. */
  decode(value: Uint8Array): V;
  encode(value: V): Uint8Array;
}

export interface HalfOctetCodec<V> {
  readonly kind: 'half';
  /** Decodes the 4 value bits (0..15). May throw InvalidIeValue. */
  decode(nibble: number): V;
  encode(value: V): number;
}

export type IeCodec<V> = OctetsCodec<V> | HalfOctetCodec<V>;

export function octets<V>(
  decode: (value: Uint8Array) => V,
  encode: (value: V) => Uint8Array,
): OctetsCodec<V> {
  return { kind: 'octets', decode, encode };
}

export function halfOctet<V>(decode: (nibble: number) => V, encode: (value: V) => number): HalfOctetCodec<V> {
  return { kind: 'half', decode, encode };
}

/**
 * A copy of (part of) a received buffer as a plain Uint8Array. Buffer's own slice shares memory, so a
 * decoded value would otherwise pin the whole received message.
 */
export function copyOf(value: Uint8Array, start?: number, end?: number): Uint8Array {
  return new Uint8Array(value.subarray(start, end));
}

/** Opaque contents, re-encoded exactly: for IEs the AMF and SMF do not interpret. */
export const bytes = octets<Uint8Array>(
  (value) => copyOf(value),
  (value) => value,
);

/** A value of exactly `length` octets kept as bytes (RAND, AUTN, RES*, MAC...). */
export function fixedBytes(length: number): OctetsCodec<Uint8Array> {
  return octets(
    (value) =>
      value.length === length ? copyOf(value) : invalid(`expected ${length} octets, got ${value.length}`),
    (value) => {
      if (value.length !== length) throw new RangeError(`expected ${length} octets, got ${value.length}`);
      return value;
    },
  );
}

/** A one-octet value kept as its number (5GMM cause, 5GSM cause, time zone...). */
export const uint8 = octets<number>(
  (value) => (value.length === 1 ? (value[0] ?? 0) : invalid(`expected 1 octet, got ${value.length}`)),
  (value) => Uint8Array.of(checkRange(value, 0, 0xff)),
);

/** A half-octet value kept as its 4-bit number; its meaning is in the IE's clause. */
export const nibble = halfOctet<number>(
  (value) => value,
  (value) => checkRange(value, 0, 0xf),
);

export function checkRange(value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`${value} is outside ${min}..${max}`);
  return value;
}
