import type { StoredGuti, UeContextRecord, UeContextStore } from '../ports/ue-contexts.ts';

/**
 * UE contexts in this process's memory, each kept as its JSON text: what is read back is a value of
 * its own, exactly what a shared store would return, and a record that does not survive JSON (a
 * Buffer, a bigint) shows at once. Indexed by SUPI and by the 5G-TMSI of the 5G-GUTI.
 */
export function createMemoryUeContextStore(): UeContextStore {
  const bySupi = new Map<string, { json: string; epoch: number; guti: StoredGuti | null }>();
  const byTmsi = new Map<number, string>();

  const sameGuti = (a: StoredGuti, b: StoredGuti): boolean =>
    a.tmsi === b.tmsi &&
    a.amfPointer === b.amfPointer &&
    a.amfSetId === b.amfSetId &&
    a.amfRegionId === b.amfRegionId &&
    a.mcc === b.mcc &&
    a.mnc === b.mnc;

  const unindex = (supi: string): void => {
    const guti = bySupi.get(supi)?.guti;
    if (guti != null && byTmsi.get(guti.tmsi) === supi) byTmsi.delete(guti.tmsi);
  };

  return {
    async put(record) {
      const stored = bySupi.get(record.supi);
      if (stored !== undefined && stored.epoch > record.epoch) return 'fenced';
      const json = JSON.stringify(record);
      const guti = record.guti === null ? null : { ...record.guti };
      unindex(record.supi);
      bySupi.set(record.supi, { json, epoch: record.epoch, guti });
      // A 5G-TMSI names one UE: a record that takes it over ends the other's claim to it.
      if (guti !== null) byTmsi.set(guti.tmsi, record.supi);
      return 'stored';
    },
    async get(supi) {
      const stored = bySupi.get(supi);
      return stored === undefined ? undefined : (JSON.parse(stored.json) as UeContextRecord);
    },
    async findByGuti(guti) {
      const supi = byTmsi.get(guti.tmsi);
      const stored = supi === undefined ? undefined : bySupi.get(supi);
      if (stored?.guti == null || !sameGuti(stored.guti, guti)) return undefined;
      return JSON.parse(stored.json) as UeContextRecord;
    },
    async delete(supi, epoch) {
      const stored = bySupi.get(supi);
      if (stored === undefined) return 'stored';
      if (stored.epoch > epoch) return 'fenced';
      unindex(supi);
      bySupi.delete(supi);
      return 'stored';
    },
  };
}
