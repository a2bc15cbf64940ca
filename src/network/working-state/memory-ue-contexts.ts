import type {
  StoredGuti,
  StoredPduSession,
  StoredSnssai,
  UeContextRecord,
  UeContextStore,
  UeTaken,
} from '../ports/ue-contexts.ts';

const snssai = (s: StoredSnssai): StoredSnssai => ({ sst: s.sst, sd: s.sd });

const guti = (g: StoredGuti): StoredGuti => ({
  mcc: g.mcc,
  mnc: g.mnc,
  amfRegionId: g.amfRegionId,
  amfSetId: g.amfSetId,
  amfPointer: g.amfPointer,
  tmsi: g.tmsi,
});

const pduSession = (s: StoredPduSession): StoredPduSession => ({
  pduSessionId: s.pduSessionId,
  sNssai: snssai(s.sNssai),
  dnn: s.dnn,
  ipType: s.ipType,
  ipv4: s.ipv4,
  ipv6Prefix: s.ipv6Prefix,
  qos: { qfi: s.qos.qfi, fiveQi: s.qos.fiveQi, arp: s.qos.arp },
  ambr: { uplinkBps: s.ambr.uplinkBps, downlinkBps: s.ambr.downlinkBps },
  tunnel: {
    uplinkTeid: s.tunnel.uplinkTeid,
    downlink:
      s.tunnel.downlink === null
        ? null
        : { gnbAddress: s.tunnel.downlink.gnbAddress, teid: s.tunnel.downlink.teid },
  },
  userPlane: s.userPlane,
});

/**
 * A copy of a record sharing no object with it, field by field as the port declares them: cheaper than a
 * JSON round trip (the AMF writes every UE at each procedure end), and the literal's type makes a field
 * added to the port a compile error here until it is copied.
 */
function copy(r: UeContextRecord): UeContextRecord {
  const { security: s, ueSecurityCapability: c, registrationArea: a } = r;
  return {
    supi: r.supi,
    epoch: r.epoch,
    owner: r.owner,
    guti: r.guti === null ? null : guti(r.guti),
    registered: r.registered,
    pei: r.pei,
    security:
      s === null
        ? null
        : {
            ngKsi: { mapped: s.ngKsi.mapped, ksi: s.ngKsi.ksi },
            kamf: s.kamf,
            ciphering: s.ciphering,
            integrity: s.integrity,
            downlinkCount: s.downlinkCount,
            uplinkCount: s.uplinkCount,
          },
    ueSecurityCapability:
      c === null
        ? null
        : {
            ea: [...c.ea],
            ia: [...c.ia],
            eea: c.eea === null ? null : [...c.eea],
            eia: c.eia === null ? null : [...c.eia],
          },
    registrationArea: a === null ? null : { mcc: a.mcc, mnc: a.mnc, tacs: [...a.tacs] },
    allowedNssai: r.allowedNssai.map(snssai),
    pduSessions: r.pduSessions.map(pduSession),
    smsOverNas: r.smsOverNas,
  };
}

/**
 * UE contexts in this process's memory, each kept as a copy of its own: what is put is copied in and
 * what is read is copied out, so neither the writer's object nor the reader's shares anything with what
 * is stored, as with a shared store. Indexed by SUPI and by the 5G-TMSI of the 5G-GUTI.
 */
export function createMemoryUeContextStore(): UeContextStore {
  const bySupi = new Map<string, UeContextRecord>();
  const byTmsi = new Map<number, string>();
  const listeners = new Set<(taken: UeTaken) => void>();

  const sameGuti = (a: StoredGuti, b: StoredGuti): boolean =>
    a.tmsi === b.tmsi &&
    a.amfPointer === b.amfPointer &&
    a.amfSetId === b.amfSetId &&
    a.amfRegionId === b.amfRegionId &&
    a.mcc === b.mcc &&
    a.mnc === b.mnc;

  const unindex = (supi: string): void => {
    const stored = bySupi.get(supi)?.guti;
    if (stored != null && byTmsi.get(stored.tmsi) === supi) byTmsi.delete(stored.tmsi);
  };

  const store = (record: UeContextRecord, epoch: number): void => {
    const kept = { ...copy(record), epoch };
    unindex(record.supi);
    bySupi.set(record.supi, kept);
    // A 5G-TMSI names one UE: a record that takes it over ends the other's claim to it.
    if (kept.guti !== null) byTmsi.set(kept.guti.tmsi, record.supi);
  };

  return {
    async put(record) {
      const stored = bySupi.get(record.supi);
      // Only a take-over makes an owner: no record, no owner to write it.
      if (stored === undefined || stored.epoch > record.epoch) return 'fenced';
      store(record, record.epoch);
      return 'stored';
    },
    async takeOver(record, seen) {
      const epoch = bySupi.get(record.supi)?.epoch ?? 0;
      if (seen !== 'any' && seen !== epoch) return 'fenced';
      store(record, epoch + 1);
      // No address leases here: each process's are its own memory's (memory-address-leases.ts).
      if (seen !== 'any' && seen > 0) {
        const taken = { supi: record.supi, epoch: epoch + 1, owner: record.owner };
        for (const listener of listeners) listener(taken);
      }
      return epoch + 1;
    },
    onTaken(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async get(supi) {
      const stored = bySupi.get(supi);
      return stored === undefined ? undefined : copy(stored);
    },
    async findByGuti(wanted) {
      const supi = byTmsi.get(wanted.tmsi);
      const stored = supi === undefined ? undefined : bySupi.get(supi);
      if (stored?.guti == null || !sameGuti(stored.guti, wanted)) return undefined;
      return copy(stored);
    },
    async ownedBy(owner, after, limit) {
      return [...bySupi.values()]
        .filter((r) => r.owner === owner && r.supi > after)
        .sort((a, b) => (a.supi < b.supi ? -1 : 1))
        .slice(0, limit)
        .map(copy);
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
