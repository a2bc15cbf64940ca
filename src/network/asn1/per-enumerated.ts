import type { PerReader } from './per-reader.ts';
import { PerError } from './per-reader.ts';

/** Enumeration indexes by name: root items first (sorted by value), then the extension additions. */
export function indexOf(names: readonly string[]): ReadonlyMap<string, number> {
  return new Map(names.map((name, index) => [name, index]));
}

/**
 * The enumeration index to encode (X.691 14): a known name's index, or for an extension addition this
 * codec does not know (kept as its number) `rootCount` + that number.
 */
export function enumeratedIndex(
  index: ReadonlyMap<string, number>,
  value: string | number,
  rootCount: number,
): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new PerError(`bad enumeration extension ${value}`);
    return rootCount + value;
  }
  const found = index.get(value);
  if (found === undefined) throw new PerError(`unknown enumeration value ${JSON.stringify(value)}`);
  return found;
}

/** An extension addition of an extensible ENUMERATED (X.691 14.3): its name, or its number if unknown. */
export function enumeratedAddition(
  r: PerReader,
  names: readonly string[],
  rootCount: number,
): string | number {
  const k = r.normallySmall();
  return names[rootCount + k] ?? k;
}
