import { bitStringHex, type BitString } from '../../asn1/bit-string.ts';
import { plmnOf } from '../../common/plmn-identity.ts';
import type { GlobalRANNodeID, PLMNIdentity } from '../../ngap/generated/types.ts';
import { radioId, type NodeIdPrefix, type Plmn } from '../../radio-id.ts';

/** The RAN node types the radio list shows (network.md section 2). */
type RanNodeType = 'gNB' | 'ng-eNB' | 'N3IWF';

/** A RAN node as its Global RAN Node ID names it. */
export interface RanNode {
  /** `<mcc>:<mnc>:<node id in hex>` (radio-id.ts). */
  id: string;
  ranNodeType: RanNodeType;
  plmn: Plmn;
}

function nodeId(bits: BitString): { value: number; bitLength: number } {
  return { value: parseInt(bitStringHex(bits), 16), bitLength: bits.length };
}

/**
 * The node's type and id from its Global RAN Node ID (TS 38.413 9.3.1.5): a gNB, an ng-eNB (macro,
 * short macro or long macro eNB id, TS 36.413 9.2.1.37) or an N3IWF. `undefined` for a node type this
 * AMF does not serve (a TNGF, TWIF or W-AGF arrives as a choice extension) or an invalid PLMN.
 */
export function ranNodeOf(global: GlobalRANNodeID): RanNode | undefined {
  const node = (
    ranNodeType: RanNodeType,
    plmnBytes: PLMNIdentity,
    bits: BitString,
    prefix: NodeIdPrefix = '',
  ): RanNode | undefined => {
    const plmn = plmnOf(plmnBytes);
    return plmn && { id: radioId(plmn, nodeId(bits), prefix), ranNodeType, plmn };
  };
  switch (global.choice) {
    case 'globalGNB-ID': {
      const { gNBID } = global.value;
      return gNBID.choice === 'gNB-ID' ? node('gNB', global.value.pLMNIdentity, gNBID.value) : undefined;
    }
    case 'globalNgENB-ID': {
      const { ngENBID, pLMNIdentity } = global.value;
      switch (ngENBID.choice) {
        case 'macroNgENB-ID':
          return node('ng-eNB', pLMNIdentity, ngENBID.value, 'macro-');
        case 'shortMacroNgENB-ID':
          return node('ng-eNB', pLMNIdentity, ngENBID.value, 'short-macro-');
        case 'longMacroNgENB-ID':
          return node('ng-eNB', pLMNIdentity, ngENBID.value, 'long-macro-');
        case 'choice-Extensions':
          return undefined;
      }
      break;
    }
    case 'globalN3IWF-ID': {
      const { n3IWFID } = global.value;
      return n3IWFID.choice === 'n3IWF-ID'
        ? node('N3IWF', global.value.pLMNIdentity, n3IWFID.value)
        : undefined;
    }
    case 'choice-Extensions':
      return undefined;
  }
}
