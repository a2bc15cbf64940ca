/**
 * The UE context the AMF keeps between procedures (TS 23.502 5.2.2.2: the UE context in the AMF, with
 * its SM contexts), as a plain record: JSON in, JSON out, nothing live (no connection, timer or
 * procedure in progress). It is what another process reads to serve the UE by its 5G-GUTI without a new
 * registration (the UDSF role, TS 23.501 6.2.15): written at the end of each procedure that changes it,
 * never per message. Absent values are `null`, so a record survives a JSON round trip unchanged.
 */
export interface UeContextRecord {
  /** The SUPI's IMSI digits: the key. */
  supi: string;
  /**
   * The owner's fencing epoch: a write from an owner whose epoch is older than the stored one is
   * refused, so a process that lost the UE to another cannot overwrite what the new owner wrote. Only
   * `takeOver` raises it.
   */
  epoch: number;
  /** The AMF set member that owns the UE (its AMF Name), as of `epoch`. */
  owner: string;
  /** The 5G-GUTI the UE holds (TS 23.003 2.10.1). */
  guti: StoredGuti | null;
  /** 5GMM-REGISTERED (TS 24.501 5.1.3.2.2). */
  registered: boolean;
  /** IMEISV or IMEI digits. */
  pei: string | null;
  /** The current 5G NAS security context (TS 24.501 4.4.2), with both NAS COUNTs. */
  security: StoredSecurityContext | null;
  /** The UE security capability it sent (TS 24.501 9.11.3.54), replayed in a Security Mode Command. */
  ueSecurityCapability: { ea: number[]; ia: number[]; eea: number[] | null; eia: number[] | null } | null;
  /** The TAI list of the last Registration Accept. */
  registrationArea: { mcc: string; mnc: string; tacs: number[] } | null;
  allowedNssai: StoredSnssai[];
  pduSessions: StoredPduSession[];
  /**
   * "SMS over NAS allowed" as the last Registration Accept told the UE (TS 24.501 9.11.3.6): the member
   * taking the UE over activates SMS for it at its SMSF (docs/sms.md).
   */
  smsOverNas: boolean;
}

export interface StoredGuti {
  mcc: string;
  mnc: string;
  amfRegionId: number;
  amfSetId: number;
  amfPointer: number;
  tmsi: number;
}

/** One S-NSSAI as NAS carries it: `sd` the 24-bit differentiator, or null. */
export interface StoredSnssai {
  sst: number;
  sd: number | null;
}

interface StoredSecurityContext {
  /** ngKSI of KAMF (TS 24.501 9.11.3.32). */
  ngKsi: { mapped: boolean; ksi: number };
  /** KAMF, 64 hex digits; KNASenc and KNASint derive from it and the algorithms (TS 33.501 A.8). */
  kamf: string;
  /** NEA and NIA algorithm numbers, 0..3. */
  ciphering: number;
  integrity: number;
  /** The NAS COUNT of the next downlink message. */
  downlinkCount: number;
  /** The highest uplink NAS COUNT accepted, or null before the first. */
  uplinkCount: number | null;
}

/** A PDU session of the UE as the SMF holds it (its SM context). */
export interface StoredPduSession {
  pduSessionId: number;
  sNssai: StoredSnssai;
  dnn: string;
  ipType: 'IPv4' | 'IPv6' | 'IPv4v6';
  ipv4: string | null;
  /** The session's /64 as its first address. */
  ipv6Prefix: string | null;
  /** The default QoS flow (QFI, 5QI, ARP priority level) and the session AMBR in bit/s. */
  qos: { qfi: number; fiveQi: number; arp: number };
  ambr: { uplinkBps: number; downlinkBps: number };
  /** N3: the UPF's uplink TEID and, while the user plane is up, the gNB's downlink tunnel. */
  tunnel: { uplinkTeid: number; downlink: { gnbAddress: string; teid: number } | null };
  userPlane: 'setting-up' | 'active' | 'inactive' | 'releasing';
}

/** Whether a write took effect, or was refused because a newer owner wrote the UE since (`epoch`). */
export type UeContextWrite = 'stored' | 'fenced';

/**
 * The epoch a take-over expects stored: a number (0 for no record) makes it a compare-and-set, which a
 * member taking over another's UE uses (the record it read, TS 23.501 5.21.2.3); `any` takes the UE
 * whatever is stored, for a member that has just authenticated it (its keys are the UE's current ones).
 */
export type UeContextSeen = number | 'any';

/** A UE another member took over from the record's owner (`takeOver` with an epoch seen). */
export interface UeTaken {
  supi: string;
  /** The epoch the new owner writes with. */
  epoch: number;
  /** The new owner's AMF Name. */
  owner: string;
}

/**
 * Where UE contexts outlive the process that serves the UE. An implementation keeps each record as a
 * value: a later change of the object given to `put` does not show in what `get` returns.
 */
export interface UeContextStore {
  /**
   * Stores the UE's record under its SUPI and under the 5G-TMSI of its 5G-GUTI, replacing both, unless
   * the stored epoch is newer than `record.epoch` or no record is stored (`fenced`: nothing changes; an
   * owner is made only by `takeOver`, so a fenced member cannot bring back a record its new owner deleted).
   */
  put(record: UeContextRecord): Promise<UeContextWrite>;
  /**
   * Makes `record.owner` the UE's owner in one compare-and-set: when the stored epoch is `seen` (0: no
   * record; `any`: whatever is stored), stores `record` with the stored epoch + 1 and returns that epoch, the
   * one the new owner writes with from then on; otherwise `fenced` and nothing changes. `record.epoch`
   * is not read. With an epoch seen (a member taking another's UE over), the same transaction hands the
   * address leases of the record's PDU sessions that are that UE's over to `record.owner`, whoever holds
   * them (the epoch is the authority), and `onTaken` listeners hear of it once it has committed.
   */
  takeOver(record: UeContextRecord, seen: UeContextSeen): Promise<number | 'fenced'>;
  /**
   * Hears every take-over with an epoch seen, by any member on this store (this process's own too): a
   * member still holding the UE drops its copy. Returns the function that stops it.
   */
  onTaken(listener: (taken: UeTaken) => void): () => void;
  get(supi: string): Promise<UeContextRecord | undefined>;
  /** The record whose 5G-GUTI is exactly `guti`. */
  findByGuti(guti: StoredGuti): Promise<UeContextRecord | undefined>;
  /**
   * The records `owner` owns whose SUPI sorts after `after` ('' for the first), by SUPI, at most `limit`:
   * a dead member's UEs, read a batch at a time by the member that adopts them (docs/amf-set.md).
   */
  ownedBy(owner: string, after: string, limit: number): Promise<UeContextRecord[]>;
  /** Forgets the UE (deregistered, or its subscriber gone); `stored` also when there was none. */
  delete(supi: string, epoch: number): Promise<UeContextWrite>;
}
