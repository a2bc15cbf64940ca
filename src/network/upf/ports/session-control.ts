// The UPF's session control as the SMF drives it (the N4 role in process, docs/upf.md): the rules of a
// PDU session and their results. Other network functions import the UPF through this file only.

/** Session AMBR (TS 23.501 5.7.1.8), bits per second; 0 means not limited. */
export interface Ambr {
  uplinkBps: number;
  downlinkBps: number;
}

export interface SessionRequest {
  /** The subscriber's IMSI: flow reports and usage carry it. */
  imsi: string;
  ueIpv4?: string;
  /** The session's /64 (TS 23.501 5.8.2.2.2), any address inside it, e.g. `2001:db8:1:2::`. */
  ueIpv6Prefix?: string;
  /** The local TEID of the uplink rule (from a TeidAllocator). */
  uplinkTeid: number;
  ambr: Ambr;
}

export interface DownlinkTunnel {
  gnbAddress: string;
  remoteTeid: number;
  /** The QFI in the PDU Session Container (TS 38.415): the default QoS flow, 1. */
  qfi?: number;
  /** The gNB's GTP-U port: 2152 (TS 29.281 4.4.2.0); another one only for tests. */
  gnbPort?: number;
}

/**
 * The user plane of a session: `active` forwards downlink packets to the gNB; `inactive` (no gNB
 * tunnel yet, or the device is idle) buffers a few of them (docs/upf.md "Downlink buffering"): sent
 * in order once `updateDownlink` makes it active, `drop` flows when they expire, do not fit, or the
 * session is released. The first such packet is told to `onDownlinkData` so that the device can be
 * paged.
 */
export type UserPlaneState = { state: 'inactive' } | { state: 'active'; tunnel: Required<DownlinkTunnel> };

export interface UpfSession {
  readonly id: number;
  readonly imsi: string;
  readonly ueIpv4?: string;
  readonly ueIpv6Prefix?: string;
  readonly uplinkTeid: number;
  readonly ambr: Ambr;
  readonly userPlane: UserPlaneState;
}

export type UpfError =
  | 'not-started'
  | 'unknown-session'
  /** The TEID or an address belongs to another session. */
  | 'in-use'
  | 'table-full'
  /** The gNB address is not of the N3 address's family. */
  | 'family-mismatch'
  | 'invalid';

export type UpfResult<T = undefined> = { ok: true; value: T } | { ok: false; error: UpfError };
