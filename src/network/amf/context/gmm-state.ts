/**
 * The 5GMM state of a UE as the AMF keeps it (TS 24.501 5.1.3.2): what the API shows as registered is
 * `registered` alone. The common and specific procedure in progress is `AmfUe.procedure`.
 * - `deregistered`: no registration, or none left (a new context, a reject, a deregistration);
 * - `registered-initiated`: a Registration Request of a UE not registered is being served, until
 *   Registration Complete (5.5.1.2.4) or its reject or abort;
 * - `registered`: Registration Complete received (a mobility or periodic update keeps it);
 * - `deregistered-initiated`: the network sent or paged for Deregistration Request (5.5.2.3.1) and waits
 *   for the UE's Deregistration Accept; the API already shows it deregistered.
 */
export type GmmState =
  | { readonly name: 'deregistered' }
  | { readonly name: 'registered-initiated' }
  | { readonly name: 'registered' }
  | { readonly name: 'deregistered-initiated' };

export type GmmStateName = GmmState['name'];

const GMM_STATES: { readonly [N in GmmStateName]: Extract<GmmState, { name: N }> } = {
  deregistered: { name: 'deregistered' },
  'registered-initiated': { name: 'registered-initiated' },
  registered: { name: 'registered' },
  'deregistered-initiated': { name: 'deregistered-initiated' },
};

/**
 * The transitions the AMF makes. A Registration Request interrupts a network-initiated deregistration
 * (`deregistered-initiated` -> `registered-initiated`); a new context that authenticated as the SUPI of
 * a registered one takes its registration over (`registered-initiated` -> `registered`); staying in a
 * state is allowed (a second reject, an update of a registered UE).
 */
const ALLOWED: { readonly [From in GmmStateName]: readonly GmmStateName[] } = {
  deregistered: ['registered-initiated'],
  'registered-initiated': ['registered', 'deregistered'],
  registered: ['deregistered-initiated', 'deregistered'],
  'deregistered-initiated': ['registered-initiated', 'deregistered'],
};

export const INITIAL_GMM_STATE: GmmState = GMM_STATES.deregistered;

/** A transition the AMF never makes: a defect, reported where the UE's message is handled. */
export class GmmTransitionError extends Error {
  constructor(from: GmmStateName, to: GmmStateName) {
    super(`5GMM: no transition from ${from} to ${to}`);
  }
}

/** The one way a UE's 5GMM state changes: checked against the transitions above. */
export function enterGmmState(ue: { gmm: GmmState }, to: GmmStateName): void {
  const from = ue.gmm.name;
  if (from !== to && !ALLOWED[from].includes(to)) throw new GmmTransitionError(from, to);
  ue.gmm = GMM_STATES[to];
}

export const isRegistered = (ue: { readonly gmm: GmmState }): boolean => ue.gmm.name === 'registered';
