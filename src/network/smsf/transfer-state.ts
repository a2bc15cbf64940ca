// The states of one short message transfer between the SMSF and a UE (TS 24.011): the SMC entity of the
// CP layer (5.2, network side) and the SMR entity of the RP layer (6.2, network side), as discriminated
// unions. Every change goes through `enterCp` / `enterRp`, checked against the transitions below, so a
// transition the SMSF never makes is a defect that shows, not a state nobody planned.

/** Cancels a running timer (TC1*, TR1N, TR2N); harmless once it fired. */
type Stop = () => void;

/**
 * The SMC entity (TS 24.011 5.2.2 network side):
 * - `mo-mm-connection-established`: CP-DATA from the UE taken and CP-ACK sent; the RP answer is awaited;
 * - `mo-wait-for-cp-ack`: CP-DATA with the RP answer sent, TC1* running;
 * - `mt-wait-for-cp-ack`: CP-DATA with the RP-DATA sent, TC1* running;
 * - `mt-mm-connection-established`: CP-ACK received, the UE's CP-DATA with its RP answer awaited;
 * - `idle`: the transfer is over (MO-Idle, MT-Idle).
 */
export type CpState =
  | { readonly name: 'idle' }
  | { readonly name: 'mo-mm-connection-established' }
  | {
      readonly name: 'mo-wait-for-cp-ack' | 'mt-wait-for-cp-ack';
      /** The CP-DATA sent, repeated when TC1* expires. */
      readonly cpData: Uint8Array;
      /** Repetitions already sent (TS 24.011 5.3.2.1). */
      readonly retransmissions: number;
      readonly stopTc1: Stop;
    }
  | { readonly name: 'mt-mm-connection-established' };

/**
 * The SMR entity (TS 24.011 6.2 network side):
 * - `idle`;
 * - `wait-to-send-rp-ack`: RP-DATA from the UE passed on (stored), TR2N running until RP-ACK or RP-ERROR goes;
 * - `wait-for-rp-ack`: RP-DATA sent to the UE, TR1N running until its RP-ACK or RP-ERROR.
 */
export type RpState =
  | { readonly name: 'idle' }
  | { readonly name: 'wait-to-send-rp-ack'; readonly stopTr2n: Stop }
  | { readonly name: 'wait-for-rp-ack'; readonly stopTr1n: Stop };

type CpName = CpState['name'];
type RpName = RpState['name'];

/** A TC1* expiry repeats the CP-DATA, staying in its state; every state may end in `idle` (release, abort). */
const CP_ALLOWED: { readonly [From in CpName]: readonly CpName[] } = {
  idle: ['mo-mm-connection-established', 'mt-wait-for-cp-ack'],
  'mo-mm-connection-established': ['mo-wait-for-cp-ack', 'idle'],
  'mo-wait-for-cp-ack': ['mo-wait-for-cp-ack', 'idle'],
  'mt-wait-for-cp-ack': ['mt-wait-for-cp-ack', 'mt-mm-connection-established', 'idle'],
  'mt-mm-connection-established': ['idle'],
};

const RP_ALLOWED: { readonly [From in RpName]: readonly RpName[] } = {
  idle: ['wait-to-send-rp-ack', 'wait-for-rp-ack'],
  'wait-to-send-rp-ack': ['idle'],
  'wait-for-rp-ack': ['idle'],
};

/** A transition the SMSF never makes: a defect, reported where the UE's message is handled. */
class SmsTransitionError extends Error {
  constructor(layer: 'CP' | 'RP', from: string, to: string) {
    super(`SMS ${layer}: no transition from ${from} to ${to}`);
  }
}

/** The one way a transfer's CP state changes; a state left stops its timer. */
export function enterCp(transfer: { cp: CpState }, to: CpState): void {
  const from = transfer.cp;
  if (!CP_ALLOWED[from.name].includes(to.name)) throw new SmsTransitionError('CP', from.name, to.name);
  if ('stopTc1' in from) from.stopTc1();
  transfer.cp = to;
}

/** The one way a transfer's RP state changes; a state left stops its timer. */
export function enterRp(transfer: { rp: RpState }, to: RpState): void {
  const from = transfer.rp;
  if (!RP_ALLOWED[from.name].includes(to.name)) throw new SmsTransitionError('RP', from.name, to.name);
  if ('stopTr2n' in from) from.stopTr2n();
  if ('stopTr1n' in from) from.stopTr1n();
  transfer.rp = to;
}

export const CP_IDLE: CpState = { name: 'idle' };
export const RP_IDLE: RpState = { name: 'idle' };
