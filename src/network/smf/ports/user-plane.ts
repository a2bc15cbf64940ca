// What the SMF asks of the UPF (the N4 role in process); core/network-functions.ts serves it from the UPF.
import type {
  Ambr,
  DownlinkTunnel,
  SessionRequest,
  UpfResult,
  UpfSession,
} from '../../upf/ports/session-control.ts';

/** The user plane the SMF drives (the UPF's control API, docs/upf.md) and where its N3 end is. */
export interface UserPlane {
  /** The UPF's N3 address: the uplink tunnel end point the gNB sends to. */
  readonly n3Address: string;
  establishSession(request: SessionRequest): UpfResult<UpfSession>;
  updateDownlink(sessionId: number, tunnel: DownlinkTunnel): UpfResult;
  deactivate(sessionId: number): UpfResult;
  /**
   * Indirect data forwarding in N2 handover (TS 23.502 4.9.1.3.2 step 11): a forwarding TEID at the N3
   * address whose packets go on to `target`; absent on a user plane that cannot forward (the target is
   * then told data forwarding is not possible).
   */
  createForwarding?(sessionId: number, target: DownlinkTunnel): UpfResult<number>;
  removeForwarding?(sessionId: number): UpfResult;
  modifyAmbr(sessionId: number, ambr: Ambr): UpfResult;
  release(sessionId: number): UpfResult;
}
