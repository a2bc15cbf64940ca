import type { Cause, SupportedTAList } from '../../ngap/generated/types.ts';
import type { Snssai, SupportedTai } from '../../radio-registry.ts';
import type { ServedNetwork } from '../context/served-network.ts';
import { plmnOf } from '../../common/plmn-identity.ts';

const hex = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');

/**
 * The radio's Supported TA List (TS 38.413 9.2.6.1, Supported TA List) as the radio list shows it: one
 * entry per (TAC, broadcast PLMN) with the slices supported there (network.md section 2). A broadcast
 * PLMN whose identity is not valid TBCD is left out: it cannot be any operator's PLMN.
 */
export function supportedTais(list: SupportedTAList): SupportedTai[] {
  const tais: SupportedTai[] = [];
  for (const item of list) {
    const tac = hex(item.tAC);
    for (const broadcast of item.broadcastPLMNList) {
      const plmn = plmnOf(broadcast.pLMNIdentity);
      if (plmn === undefined) continue;
      const snssais = broadcast.tAISliceSupportList.map(({ sNSSAI }): Snssai => {
        const sst = sNSSAI.sST[0] ?? 0;
        return sNSSAI.sD === undefined ? { sst } : { sst, sd: hex(sNSSAI.sD) };
      });
      tais.push({ tai: { plmnID: plmn, tac }, snssais });
    }
  }
  return tais;
}

/**
 * Whether the operator serves these tracking areas (network.md section 2, decisions section 7): at
 * least one broadcast TAI must carry the operator's PLMN and one of its TACs. Otherwise the cause of
 * the failure: no broadcast PLMN is the operator's -> misc `unknown-PLMN-or-SNPN`; the PLMN is there,
 * but none of its TACs -> misc `unspecified`.
 */
export function servedTaCheck(
  tais: readonly SupportedTai[],
  network: ServedNetwork,
): { ok: true } | { ok: false; cause: Cause } {
  const { mcc, mnc } = network.plmn;
  const ours = tais.filter(({ tai }) => tai.plmnID.mcc === mcc && tai.plmnID.mnc === mnc);
  if (ours.length === 0) return { ok: false, cause: { choice: 'misc', value: 'unknown-PLMN-or-SNPN' } };
  if (!ours.some(({ tai }) => network.tacs.includes(tai.tac)))
    return { ok: false, cause: { choice: 'misc', value: 'unspecified' } };
  return { ok: true };
}
