import type { Plmn } from '../network/radio-id.ts';
import type {
  GlobalRANNodeID,
  PagingDRX,
  SliceSupportItem,
  SupportedTAList,
} from '../network/ngap/generated/types.ts';
import { bits, plmnIdentity, tac } from '../network/ngap/ngap-values.ts';

/**
 * The node identity a simulated RAN node claims in its Global RAN Node ID (TS 38.413 9.3.1.5):
 * a gNB id of 22 to 32 bits, or an ng-eNB id of one of its three fixed lengths (TS 38.413 9.3.1.8).
 */
export type RanNodeIdentity =
  | { kind: 'gNB'; value: number; bitLength: number }
  | { kind: 'ng-eNB'; variant: NgEnbVariant; value: number };

export type NgEnbVariant = 'macro' | 'short-macro' | 'long-macro';

/** Bit lengths of the ng-eNB id variants (TS 38.413 9.3.1.8: 20, 18 and 21 bits). */
export const NG_ENB_BITS: Readonly<Record<NgEnbVariant, number>> = {
  macro: 20,
  'short-macro': 18,
  'long-macro': 21,
};

/** An S-NSSAI (TS 23.003 28.4.2): SST 0..255 and an optional 24-bit SD. */
export interface Slice {
  sst: number;
  sd?: number;
}

/** One broadcast PLMN of a tracking area, with the slices the node supports there. */
interface BroadcastPlmn {
  plmn: Plmn;
  slices: readonly Slice[];
}

/** One supported tracking area (TAC, 24 bits) and the PLMNs broadcast in it. */
export interface SupportedTa {
  tac: number;
  plmns: readonly BroadcastPlmn[];
}

/** What a simulated RAN node is: everything its NG Setup Request says. */
export interface GnbConfig {
  /** The PLMN of the Global RAN Node ID. */
  plmn: Plmn;
  node: RanNodeIdentity;
  /** RANNodeName; omitted from NG Setup when absent. */
  name?: string;
  supportedTas: readonly SupportedTa[];
  /** DefaultPagingDRX (TS 38.413 9.3.1.90); v128 when absent. */
  pagingDrx?: PagingDRX;
}

/** Throws RangeError for a configuration no NG Setup Request could carry (a caller's mistake). */
export function validateGnbConfig(config: GnbConfig): void {
  const { node } = config;
  const bitLength = node.kind === 'gNB' ? node.bitLength : NG_ENB_BITS[node.variant];
  if (node.kind === 'gNB' && (!Number.isInteger(bitLength) || bitLength < 22 || bitLength > 32)) {
    throw new RangeError(`gNB id bit length must be 22..32, got ${bitLength}`);
  }
  if (!Number.isInteger(node.value) || node.value < 0 || node.value >= 2 ** bitLength) {
    throw new RangeError(`node id ${node.value} does not fit in ${bitLength} bits`);
  }
  if (config.name !== undefined && (config.name.length < 1 || config.name.length > 150)) {
    throw new RangeError('RANNodeName is 1..150 characters'); // TS 38.413 9.3.1.6: PrintableString (SIZE(1..150, ...))
  }
  if (config.supportedTas.length < 1 || config.supportedTas.length > 256) {
    throw new RangeError('a node supports 1..256 tracking areas'); // maxnoofTACs
  }
  for (const ta of config.supportedTas) {
    if (!Number.isInteger(ta.tac) || ta.tac < 0 || ta.tac > 0xffffff)
      throw new RangeError(`bad TAC ${ta.tac}`);
    if (ta.plmns.length < 1 || ta.plmns.length > 12) throw new RangeError('a TA broadcasts 1..12 PLMNs'); // maxnoofBPLMNs
    for (const { slices } of ta.plmns) {
      if (slices.length < 1 || slices.length > 1024) throw new RangeError('a PLMN has 1..1024 slices'); // maxnoofSliceItems
      for (const slice of slices) {
        if (!Number.isInteger(slice.sst) || slice.sst < 0 || slice.sst > 255) {
          throw new RangeError(`bad SST ${slice.sst}`);
        }
        if (slice.sd !== undefined && (!Number.isInteger(slice.sd) || slice.sd < 0 || slice.sd > 0xffffff)) {
          throw new RangeError(`bad SD ${slice.sd}`);
        }
      }
    }
  }
}

/** The GlobalRANNodeID IE value of a node. */
export function globalRanNodeId(config: GnbConfig): GlobalRANNodeID {
  const plmn = plmnIdentity(config.plmn.mcc, config.plmn.mnc);
  const { node } = config;
  switch (node.kind) {
    case 'gNB':
      return {
        choice: 'globalGNB-ID',
        value: { pLMNIdentity: plmn, gNBID: { choice: 'gNB-ID', value: bits(node.value, node.bitLength) } },
      };
    case 'ng-eNB': {
      const id = bits(node.value, NG_ENB_BITS[node.variant]);
      const ngENBID =
        node.variant === 'macro'
          ? ({ choice: 'macroNgENB-ID', value: id } as const)
          : node.variant === 'short-macro'
            ? ({ choice: 'shortMacroNgENB-ID', value: id } as const)
            : ({ choice: 'longMacroNgENB-ID', value: id } as const);
      return { choice: 'globalNgENB-ID', value: { pLMNIdentity: plmn, ngENBID } };
    }
  }
}

/** The SupportedTAList IE value of a node. */
export function supportedTaList(tas: readonly SupportedTa[]): SupportedTAList {
  return tas.map((ta) => ({
    tAC: tac(ta.tac),
    broadcastPLMNList: ta.plmns.map((broadcast) => ({
      pLMNIdentity: plmnIdentity(broadcast.plmn.mcc, broadcast.plmn.mnc),
      tAISliceSupportList: broadcast.slices.map(sliceSupportItem),
    })),
  }));
}

function sliceSupportItem(slice: Slice): SliceSupportItem {
  const sST = Uint8Array.of(slice.sst);
  if (slice.sd === undefined) return { sNSSAI: { sST } };
  return { sNSSAI: { sST, sD: tac(slice.sd) } }; // SD is three octets, most significant first, as a TAC
}

/** The radio id PMN Core gives this node (network.md section 2), e.g. `001:01:000001`, `001:01:macro-00001`. */
export function expectedRadioId(config: GnbConfig): string {
  const { node } = config;
  const bitLength = node.kind === 'gNB' ? node.bitLength : NG_ENB_BITS[node.variant];
  const hex = node.value.toString(16).padStart(Math.ceil(bitLength / 4), '0');
  const prefix = node.kind === 'gNB' ? '' : `${node.variant}-`;
  return `${config.plmn.mcc}:${config.plmn.mnc}:${prefix}${hex}`;
}
