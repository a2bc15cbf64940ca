/**
 * Told which subscribers the AMF holds a UE context for: one indexed under the SUPI (authenticated,
 * taken over or adopted). `held` once one is; `released` once none is (deregistration, implicit
 * deregistration, taken over by another member of the AMF set, dropped at a database cut). The core
 * keeps those subscribers' subscription data for a database outage by it
 * (core/remembered-subscription-data.ts).
 */
export interface HeldSubscribers {
  held(supi: string): void;
  released(supi: string): void;
}
