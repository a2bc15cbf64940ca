/**
 * Where an intra-AMF N2 handover is (TS 23.502 4.9.1.3, TS 38.413 8.4.1-8.4.5), as the AMF keeps it:
 * - `preparing`: Handover Required taken; `requested` once Handover Request went to the target;
 * - `cancelled`: the source cancelled after Handover Request: a late Acknowledge's context is released;
 * - `prepared`: Handover Command sent; the target's connection waits for Handover Notify;
 * - `ended`: completed, failed or cancelled; nothing is held any more.
 */
export type HandoverPhase<Connection> =
  | { readonly kind: 'preparing'; readonly requested: boolean }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'prepared'; readonly target: Connection }
  | { readonly kind: 'ended' };

type Kind = HandoverPhase<unknown>['kind'];

const ALLOWED: { readonly [from in Kind]: readonly Kind[] } = {
  preparing: ['preparing', 'cancelled', 'prepared', 'ended'],
  cancelled: ['ended'],
  prepared: ['ended'],
  ended: [],
};

/** Moves `handover` to `to`; an illegal transition is the AMF's bug and throws. */
export function enterPhase<Connection>(
  handover: { phase: HandoverPhase<Connection> },
  to: HandoverPhase<Connection>,
): void {
  if (!ALLOWED[handover.phase.kind].includes(to.kind))
    throw new Error(`AMF: illegal handover transition ${handover.phase.kind} -> ${to.kind}`);
  handover.phase = to;
}
