/** A PLMN identity as the API spells it. */
export interface Plmn {
  mcc: string;
  mnc: string;
}

/** The prefix of an ng-eNB id by the kind of its eNB id (network.md section 2); a gNB or N3IWF id has none. */
export type NodeIdPrefix = '' | 'macro-' | 'short-macro-' | 'long-macro-';

/**
 * A `ran_id` as radio logs carry it and a filter may spell it: a radio's id,
 * `<mcc>:<mnc>:<node id in hex>` (hex in any case, an ng-eNB's id with its prefix), or, for what
 * happened before NG Setup named the node, the peer's address `ip:port` (`[ipv6]:port`).
 */
export const RADIO_ID_PATTERN =
  '^(?:[0-9]{3}:[0-9]{2,3}:(?:macro-|short-macro-|long-macro-)?[0-9a-fA-F]{1,8}' +
  '|[0-9]{1,3}(?:\\.[0-9]{1,3}){3}:[0-9]{1,5}|\\[[0-9a-fA-F:.]+\\]:[0-9]{1,5})$';

/**
 * The id of a RAN node, `<mcc>:<mnc>:<node id in hex>` (decisions section 11, network.md section 2): the
 * gNB, ng-eNB or N3IWF id from the node's global RAN node id, in lower-case hex with as many digits as
 * its bit length needs (a 22-bit gNB id has 6, a 32-bit one 8), so one node always gets the same
 * spelling; an ng-eNB id carries the prefix of its kind (`macro-`, `short-macro-`, `long-macro-`).
 */
export function radioId(
  plmn: Plmn,
  nodeId: { value: number; bitLength: number },
  prefix: NodeIdPrefix = '',
): string {
  const { value, bitLength } = nodeId;
  if (!/^\d{3}$/.test(plmn.mcc) || !/^\d{2,3}$/.test(plmn.mnc)) {
    throw new RangeError(`invalid PLMN ${plmn.mcc}-${plmn.mnc}`);
  }
  if (!Number.isInteger(bitLength) || bitLength < 1 || bitLength > 32) {
    throw new RangeError(`node id bit length must be 1..32, got ${bitLength}`);
  }
  if (!Number.isInteger(value) || value < 0 || value >= 2 ** bitLength) {
    throw new RangeError(`node id ${value} does not fit in ${bitLength} bits`);
  }
  return `${plmn.mcc}:${plmn.mnc}:${prefix}${value.toString(16).padStart(Math.ceil(bitLength / 4), '0')}`;
}

/** The stored spelling of a radio id typed by a person: the hex part in lower case. */
export function normalizeRadioId(id: string): string {
  return id.toLowerCase();
}

/** A peer's transport address as radios and radio logs show it: `ip:port`, `[ipv6]:port`. */
export function radioAddress(address: { address: string; port: number }): string {
  return address.address.includes(':')
    ? `[${address.address}]:${address.port}`
    : `${address.address}:${address.port}`;
}
