import type { UeConnection } from './ue-connections.ts';

/** Which reachability timer runs for a registered CM-IDLE UE (TS 24.501 5.3.7), and how to stop it. */
interface Reachability {
  readonly timer: 'mobile-reachable' | 'implicit-deregistration';
  readonly cancel: () => void;
}

/**
 * The 5GMM connection management state of a UE in the AMF (TS 23.501 5.3.3.2, TS 24.501 5.1.3.2.1):
 * - `idle`: no N2 connection; a registered UE has its reachability timer running, paging finds it;
 * - `connected`: its UE-associated logical NG-connection, and whether the radio holds its context
 *   (Initial Context Setup succeeded on it: NAS for sessions and configuration can go).
 */
export type CmState<Connection = UeConnection> =
  | { readonly name: 'idle'; reachability: Reachability | undefined }
  | { readonly name: 'connected'; readonly connection: Connection; contextSetUp: boolean };

export const INITIAL_CM_STATE: CmState<never> = { name: 'idle', reachability: undefined };

interface WithCm<Connection> {
  cm: CmState<Connection>;
}

/** The UE's N2 connection while CM-CONNECTED. */
export function connectionOf<Connection>(ue: { readonly cm: CmState<Connection> }): Connection | undefined {
  return ue.cm.name === 'connected' ? ue.cm.connection : undefined;
}

/** CM-CONNECTED and the radio holds the UE's context. */
export function contextSetUp(ue: { readonly cm: CmState<unknown> }): boolean {
  return ue.cm.name === 'connected' && ue.cm.contextSetUp;
}

/**
 * CM-CONNECTED over `connection` (an initial NAS message over a new connection, or the one it replaces):
 * the reachability timers of CM-IDLE stop (TS 24.501 5.3.7) and the radio holds no context yet.
 */
export function enterConnected<Connection>(ue: WithCm<Connection>, connection: Connection): void {
  if (ue.cm.name === 'idle') ue.cm.reachability?.cancel();
  ue.cm = { name: 'connected', connection, contextSetUp: false };
}

/** Initial Context Setup succeeded on the UE's connection. */
export function markContextSetUp<Connection>(ue: WithCm<Connection>): void {
  if (ue.cm.name === 'connected') ue.cm.contextSetUp = true;
}

/** CM-IDLE (the connection ended), with the reachability timer a registered UE runs, if any. */
export function enterIdle<Connection>(ue: WithCm<Connection>, reachability?: Reachability): void {
  if (ue.cm.name === 'idle') ue.cm.reachability?.cancel();
  ue.cm = { name: 'idle', reachability };
}

/** The reachability timer of a CM-IDLE UE moves on (mobile reachable -> implicit deregistration) or ends. */
export function setReachability<Connection>(
  ue: WithCm<Connection>,
  reachability: Reachability | undefined,
): void {
  if (ue.cm.name !== 'idle') return;
  ue.cm.reachability = reachability;
}
