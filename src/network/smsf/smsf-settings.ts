// The SMSF's timers and limits (docs/sms.md, "Relay"). TS 24.011 10 (Table 10.1) gives TR1M 35-45 s and
// TR2M 12-20 s for the MS; the network's TR1N and TR2N are taken from the same ranges. TC1* is left to
// the implementation beyond covering a round trip (5.3.2.1); the number of CP-DATA repetitions is an
// implementation option of at least one (5.3.2.1). TC1* times (repetitions + 1) stays below TR1N, so
// every repetition goes before the RP layer gives up.

export interface SmsfSettings {
  /** TC1*: how long a CP-DATA waits for its CP-ACK before it is sent again. */
  tc1StarMs: number;
  /** How many times a CP-DATA is sent again before the transfer is given up. */
  cpRetransmissions: number;
  /** TR1N: how long an RP-DATA to the UE waits for its RP-ACK or RP-ERROR. */
  tr1nMs: number;
  /** TR2N: how long the network may take to answer the UE's RP-DATA. */
  tr2nMs: number;
  /** The validity of a message whose SMS-SUBMIT carries no TP-VP. */
  defaultValidityMs: number;
  /** The service centre address the RP-DATA to the UE names as its originator (TS 24.011 8.2.5.1). */
  serviceCentre: string;
  /** At most this many status reports wait in memory per UE (they are not stored). */
  maxPendingReports: number;
  /** A UE's queued messages are read this many at a time (its memory held per UE). */
  queuePage: number;
}

export const DEFAULT_SMSF_SETTINGS: SmsfSettings = {
  tc1StarMs: 10_000,
  cpRetransmissions: 2,
  tr1nMs: 40_000,
  tr2nMs: 15_000,
  defaultValidityMs: 7 * 86_400_000,
  serviceCentre: '0',
  maxPendingReports: 100,
  queuePage: 8,
};
