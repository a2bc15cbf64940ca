import { toHex } from './hex.ts';
import { PerReader } from './per-reader.ts';

/** `Reject (0)`: an enumeration value as the contract shows criticalities (network.md section 3). */
export function enumeratedLabel(value: string | number, index: ReadonlyMap<string, number>): string {
  if (typeof value === 'number') return `Unknown extension (${value})`;
  return `${value[0]!.toUpperCase()}${value.slice(1)} (${index.get(value)})`;
}

/** The id of an IE this codec does not know. */
export function unknownKey(key: unknown): string {
  return `Unknown (${String(key)})`;
}

/** Unknown extension additions as `{raw}` (undefined when there are none, so JSON omits them). */
export function viewUnknownExtensions(raw: (Uint8Array | undefined)[] | undefined): unknown {
  return raw?.map((bytes) => (bytes === undefined ? null : { raw: toHex(bytes) }));
}

/**
 * An OCTET STRING (CONTAINING T) decoded in place (e.g. the PDU session resource transfers of NGAP); if
 * its octets are not a valid T, the hex and why.
 */
export function viewContaining<T, H>(
  bytes: Uint8Array,
  aligned: boolean,
  decode: (r: PerReader) => T,
  view: (value: T, hooks: H) => unknown,
  hooks: H,
): unknown {
  let value: T;
  try {
    value = decode(new PerReader(bytes, aligned, 0, undefined, 1));
  } catch (error) {
    return { hex: toHex(bytes), error: error instanceof Error ? error.message : String(error) };
  }
  return view(value, hooks);
}

/** Hooks of a protocol whose JSON view needs none (NRPPa, LPP). */
export type ViewHooks = Record<string, unknown>;

/** A CHOICE's view `{key: value}` shown as `value` where its component bears the same name. */
export function unwrapChoice(view: unknown, key: string): unknown {
  if (view === null || typeof view !== 'object') return view;
  const keys = Object.keys(view);
  return keys.length === 1 && keys[0] === key ? (view as Record<string, unknown>)[key] : view;
}

/** The view of a key-material value (network.md section 4): never its bits, whatever they are. */
export function redactedView(): unknown {
  return { redacted: true };
}
