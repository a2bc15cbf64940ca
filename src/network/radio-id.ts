/** A PLMN identity as the API spells it. */
export interface Plmn {
  mcc: string;
  mnc: string;
}

/** A radio's id as a `ran_id` filter may spell it: `<mcc>:<mnc>:<node id in hex>`, hex in any case. */
export const RADIO_ID_PATTERN = '^[0-9]{3}:[0-9]{2,3}:[0-9a-fA-F]{1,8}$';

/**
 * The id of a RAN node, `<mcc>:<mnc>:<node id in hex>` (decisions section 11): the gNB (or ng-eNB) id
 * from the node's global RAN node id, in lower-case hex with as many digits as its bit length needs
 * (a 22-bit gNB id has 6, a 32-bit one 8), so one node always gets the same spelling.
 */
export function radioId(plmn: Plmn, nodeId: { value: number; bitLength: number }): string {
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
  return `${plmn.mcc}:${plmn.mnc}:${value.toString(16).padStart(Math.ceil(bitLength / 4), '0')}`;
}

/** The stored spelling of a radio id typed by a person: the hex part in lower case. */
export function normalizeRadioId(id: string): string {
  return id.toLowerCase();
}
