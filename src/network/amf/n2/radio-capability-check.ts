// UE Radio Capability Check from the AMF (TS 38.413 8.14.2; TS 23.502 4.2.8a "UE Radio Capability Match
// Request"): the AMF asks the radio whether the UE's radio capability is compatible with the network's
// configuration for IMS voice, before it says "IMS voice over PS session supported" (gmm/ims-voice.ts).
import type { Timers } from '../../../clock.ts';
import type { IMSVoiceSupportIndicator } from '../../ngap/generated/types.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import type { UeConnection } from '../context/ue-connections.ts';
import type { RadioCapabilityCheckEndpoint, UeNgap } from './ue-ngap.ts';

/**
 * How long the AMF waits for UE Radio Capability Check Response before taking IMS voice as not
 * supported. TS 38.413 gives the AMF no timer for this class 1 procedure; the registration that asked
 * waits for it, well inside the UE's T3510 (15 s).
 */
export const RADIO_CAPABILITY_CHECK_GUARD_MS = 5_000;

interface CheckAmf {
  ngap: Pick<UeNgap<AmfUe>, 'checkRadioCapability'>;
  timers: Timers;
}

export function createRadioCapabilityCheck(amf: CheckAmf) {
  /** The check waiting on each connection: one at a time, so that an answer names its request. */
  const waiting = new Map<UeConnection<AmfUe>, { result: Promise<boolean>; settle(ok: boolean): void }>();

  const endpoint: RadioCapabilityCheckEndpoint<AmfUe> = {
    answered(connection, imsVoice: IMSVoiceSupportIndicator): boolean {
      const entry = waiting.get(connection);
      if (entry === undefined) return false;
      // 9.3.1.89: a value of a later release says nothing the AMF knows: not supported. (The IE is
      // mandatory, criticality reject: a Response without it is refused before it gets here.)
      entry.settle(imsVoice === 'supported');
      return true;
    },
  };

  return {
    endpoint,
    /**
     * Asks the radio of `connection` (with the UE radio capability `capability` the AMF holds, if any);
     * true when it answers IMS voice supported, false when it answers not supported, does not answer
     * within the guard, or the request could not be sent. A check already waiting there is joined.
     */
    check(connection: UeConnection<AmfUe>, capability: Uint8Array | undefined): Promise<boolean> {
      const pending = waiting.get(connection);
      if (pending !== undefined) return pending.result;
      if (connection.phase !== 'active' || !amf.ngap.checkRadioCapability(connection, capability))
        return Promise.resolve(false);
      let settle: (ok: boolean) => void = () => undefined;
      const result = new Promise<boolean>((resolve) => (settle = resolve));
      const cancelGuard = amf.timers.after(RADIO_CAPABILITY_CHECK_GUARD_MS, () => finish(false));
      const finish = (ok: boolean): void => {
        if (waiting.get(connection)?.result !== result) return;
        cancelGuard();
        waiting.delete(connection);
        settle(ok);
      };
      waiting.set(connection, { result, settle: finish });
      return result;
    },
    /** Checks awaiting their answer (tests: nothing is left behind). */
    outstanding: (): number => waiting.size,
  };
}

export type RadioCapabilityCheck = ReturnType<typeof createRadioCapabilityCheck>;
