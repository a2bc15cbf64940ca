/**
 * The AMF's NAS timers and limits (network.md section 5, TS 24.501 10.2). Process settings
 * (`src/config/`): every timer can be changed for a deployment or shortened by a test.
 */
export interface AmfTimerSettings {
  /** T3512, periodic registration update, sent to the UE in Registration Accept (default 54 min). */
  t3512Ms: number;
  /** T3502, sent with Registration Reject so the UE waits before trying again (default 12 min). */
  t3502Ms: number;
  /** T3550: Registration Accept awaiting Registration Complete (6 s). */
  t3550Ms: number;
  /** T3560: Authentication Request or Security Mode Command awaiting the answer (6 s). */
  t3560Ms: number;
  /** T3570: Identity Request awaiting Identity Response (6 s). */
  t3570Ms: number;
  /** T3522: network-initiated Deregistration Request awaiting Deregistration Accept (6 s). */
  t3522Ms: number;
  /** T3555: Configuration Update Command awaiting Configuration Update Complete (6 s). */
  t3555Ms: number;
  /** T3513: Paging awaiting the UE's Service Request (6 s, network dependent in 24.501). */
  t3513Ms: number;
  /**
   * T3346, the back-off sent with Registration Reject #22 when `maxUeContexts` are held (24.501
   * 5.5.1.2.5): each UE gets a value between half this and this, so that rejected devices do not all
   * come back at once (TS 23.501 5.19.7.2). Default 10 min: the order of T3502.
   */
  t3346Ms: number;
  /** Retransmissions before a NAS timer's expiry aborts its procedure (the fifth expiry, 24.501 5.4, 5.5). */
  retransmissions: number;
  /** Mobile reachable timer, started when a registered UE goes idle (default T3512 + 4 min, 24.501 5.3.7). */
  mobileReachableMs: number;
  /** Implicit deregistration timer, started when the mobile reachable timer expires (default 4 min). */
  implicitDeregistrationMs: number;
  /**
   * The NAS COUNT (downlink sent or uplink received) at which a connected UE's NAS security context is
   * replaced by a new authentication and Security Mode Command (TS 33.501 6.9.4.2; gmm/rekeying.ts): the
   * AMF must never let a COUNT wrap (6.4.3.1). Default 2^24 - 2^16: 65,535 messages of margin for the
   * re-keying itself and a UE that stays idle or busy in another procedure meanwhile.
   */
  nasRekeyCount: number;
  /**
   * The longest a NAS security context stays in use before a connected UE is re-keyed (the operator's
   * policy, TS 33.501 6.9.4.2 leaves it to the network); 0: no limit (the default).
   */
  nasSecurityMaxAgeMs: number;
}

export interface AmfLimits {
  /**
   * UE contexts (registered or registering devices) the AMF holds at once; beyond it Registration
   * Request -> Registration Reject #22 (congestion) with T3346. The default fits the service's heap
   * (`HEAP_PER_UE_CONTEXT_BYTES`, `src/node-flags.ts`).
   */
  maxUeContexts: number;
  /** UE-associated logical NG-connections (connected devices) at once. */
  maxConnections: number;
}

export type AmfSettings = AmfTimerSettings & AmfLimits;

const MINUTE = 60_000;

export const DEFAULT_AMF_TIMERS: AmfTimerSettings = {
  t3512Ms: 54 * MINUTE,
  t3502Ms: 12 * MINUTE,
  t3550Ms: 6_000,
  t3560Ms: 6_000,
  t3570Ms: 6_000,
  t3522Ms: 6_000,
  t3555Ms: 6_000,
  t3513Ms: 6_000,
  t3346Ms: 10 * MINUTE,
  retransmissions: 4,
  mobileReachableMs: 58 * MINUTE,
  implicitDeregistrationMs: 4 * MINUTE,
  nasRekeyCount: 0xff0000,
  nasSecurityMaxAgeMs: 0,
};

/**
 * Live V8 heap one registered device costs the service (its UE context, keys and timers, the API's
 * picture of it), measured: with a 512 MiB old space the service ran out of heap near 105,000 registered
 * devices (docs/performance/history.md, Registration, quiet runs), about 5 KB each.
 */
export const HEAP_PER_UE_CONTEXT_BYTES = 5_000;

/**
 * 110,000 UE contexts: the 100,000 devices of issue 16 with 10% to spare, about 525 MiB of the service's
 * 640 MiB old space (`src/node-flags.ts`), the rest for the process's base and the records in flight.
 * Before, 250,000: far beyond what the heap holds, so the heap limit aborted the service first.
 */
export const DEFAULT_AMF_LIMITS: AmfLimits = { maxUeContexts: 110_000, maxConnections: 200_000 };

export const DEFAULT_AMF_SETTINGS: AmfSettings = { ...DEFAULT_AMF_TIMERS, ...DEFAULT_AMF_LIMITS };
