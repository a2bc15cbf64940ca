/** Protocol parameters (RFC 9260 16, defaults as recommended there) and resource limits. */
export interface SctpParameters {
  /** RTO.Initial, RTO.Min, RTO.Max (ms). */
  rtoInitial: number;
  rtoMin: number;
  rtoMax: number;
  /** Max.Burst: new packets one SACK may release (RFC 9260 6.1 D). */
  maxBurst: number;
  /** Valid.Cookie.Life (ms). */
  validCookieLife: number;
  associationMaxRetrans: number;
  pathMaxRetrans: number;
  maxInitRetransmits: number;
  /** HB.interval (ms), added to the path's RTO with jitter. */
  heartbeatInterval: number;
  /** Delayed SACK (ms); RFC 9260 6.2 requires at most 500, recommends 200. */
  sackDelay: number;
}

/** What one peer can make this endpoint hold; every one is enforced, documented in docs/sctp.md. */
export interface SctpLimits {
  /** Associations of one endpoint (all ports); an INIT beyond is answered with ABORT (Out of Resource). */
  maxAssociations: number;
  /** Streams offered (OS) and accepted (MIS) when a listener or connect says nothing. */
  defaultStreams: number;
  /** The largest stream count accepted in configuration (MIS and OS), 1..65535. */
  maxStreams: number;
  /** Receive buffer per association: the a_rwnd advertised; held fragments and waiting messages count. */
  receiveWindow: number;
  /** The largest user message sent or reassembled; a larger inbound message aborts (Out of Resource). */
  maxMessageSize: number;
  /** Bytes queued for sending (unsent and unacknowledged) per association before `send` refuses. */
  maxQueuedBytes: number;
  /** Peer addresses (paths) kept per association; extra addresses in INIT are ignored. */
  maxPeerAddresses: number;
  /** TSNs above the cumulative ack held at once (bounds the out-of-order bookkeeping). */
  maxOutOfOrderTsns: number;
}

export const DEFAULT_PARAMETERS: SctpParameters = {
  rtoInitial: 1000,
  rtoMin: 1000,
  rtoMax: 60000,
  maxBurst: 4,
  validCookieLife: 60000,
  associationMaxRetrans: 10,
  pathMaxRetrans: 5,
  maxInitRetransmits: 8,
  heartbeatInterval: 30000,
  sackDelay: 200,
};

export const DEFAULT_LIMITS: SctpLimits = {
  maxAssociations: 10000,
  defaultStreams: 16,
  maxStreams: 1024,
  receiveWindow: 256 * 1024,
  maxMessageSize: 128 * 1024,
  maxQueuedBytes: 1024 * 1024,
  maxPeerAddresses: 8,
  maxOutOfOrderTsns: 4096,
};

/** Bookkeeping a held DATA chunk costs beyond its user data, charged to the receive window. */
export const CHUNK_OVERHEAD = 128;
