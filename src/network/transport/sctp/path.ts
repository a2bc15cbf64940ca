import type { LinkAddress } from './packet-link.ts';
import type { SctpParameters } from './sctp-config.ts';

/**
 * One destination transport address of the peer (RFC 9260 6.4, 8.2): its retransmission timer
 * estimate (6.3), congestion state (7.2) and reachability.
 */
export class Path {
  readonly remote: LinkAddress;
  /** RFC 9260 5.4: an address listed by the peer is unconfirmed until a HEARTBEAT to it is answered. */
  confirmed: boolean;
  active = true;
  errorCount = 0;
  rto: number;
  #srtt: number | undefined;
  #rttvar = 0;
  readonly mtu: number;
  cwnd: number;
  ssthresh: number;
  partialBytesAcked = 0;
  /** A HEARTBEAT sent and not yet answered (its nonce). */
  heartbeatNonce: number | undefined;
  /** Last time data or a heartbeat was sent to it, for idleness (RFC 9260 8.3). */
  lastSent = 0;

  constructor(
    remote: LinkAddress,
    confirmed: boolean,
    mtu: number,
    peerRwnd: number,
    private readonly params: SctpParameters,
  ) {
    this.remote = remote;
    this.confirmed = confirmed;
    this.mtu = mtu;
    this.rto = params.rtoInitial;
    // RFC 9260 7.2.1: initial cwnd = min(4 * MTU, max(2 * MTU, 4380)); ssthresh may be the peer's rwnd.
    this.cwnd = Math.min(4 * mtu, Math.max(2 * mtu, 4380));
    this.ssthresh = peerRwnd;
  }

  /** RFC 9260 6.3.1: RTO from a round-trip measurement `r` (ms). */
  measureRtt(r: number): void {
    if (this.#srtt === undefined) {
      this.#srtt = r;
      this.#rttvar = r / 2;
    } else {
      this.#rttvar = 0.75 * this.#rttvar + 0.25 * Math.abs(this.#srtt - r);
      this.#srtt = 0.875 * this.#srtt + 0.125 * r;
    }
    // G (clock granularity) is 1 ms here: the injected clock counts milliseconds.
    const rto = this.#srtt + Math.max(1, 4 * this.#rttvar);
    this.rto = Math.min(this.params.rtoMax, Math.max(this.params.rtoMin, rto));
  }

  /** RFC 9260 6.3.3 E2: back off after a timeout. */
  backOff(): void {
    this.rto = Math.min(this.params.rtoMax, this.rto * 2);
  }

  /** RFC 9260 7.2.1, 7.2.2: growth on newly acknowledged bytes, when the window was in use. */
  onAcked(bytes: number, cwndFull: boolean, inFastRecovery: boolean): void {
    if (inFastRecovery || !cwndFull) return;
    if (this.cwnd <= this.ssthresh) {
      this.cwnd += Math.min(bytes, this.mtu);
    } else {
      this.partialBytesAcked += bytes;
      if (this.partialBytesAcked >= this.cwnd) {
        this.partialBytesAcked -= this.cwnd;
        this.cwnd += this.mtu;
      }
    }
  }

  /** RFC 9260 7.2.4: on entering fast recovery. */
  onFastRetransmit(): void {
    this.ssthresh = Math.max(Math.floor(this.cwnd / 2), 4 * this.mtu);
    this.cwnd = this.ssthresh;
    this.partialBytesAcked = 0;
  }

  /** RFC 9260 7.2.3: on a T3-rtx timeout. */
  onTimeout(): void {
    this.ssthresh = Math.max(Math.floor(this.cwnd / 2), 4 * this.mtu);
    this.cwnd = this.mtu;
    this.partialBytesAcked = 0;
  }
}
