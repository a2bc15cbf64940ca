import type { Timers } from '../../clock.ts';
import type { RadioMeasurement } from './radio-measurement.ts';
import type { ProvideCapabilitiesr9IEs, ProvideLocationInformationr9IEs } from '../lpp/generated/types.ts';
import { decodeLppMessage, encodeLppMessage } from './lpp-codec.ts';
import {
  capable,
  gnssEstimateOf,
  lppAnswerOf,
  requestCapabilities,
  requestLocationInformation,
  ueMeasurementsOf,
  type LppAnswer,
  type LppRequest,
  type UeMeasuredCell,
} from './lpp-messages.ts';
import { decodeNrppaPdu, encodeNrppaPdu } from './nrppa-codec.ts';
import { ecidAnswerOf, ecidMeasurementInitiationRequest, type NetworkEcidReport } from './nrppa-ecid.ts';
import type { LmfTransport } from './ports/amf-transport.ts';

/** network.md section 8: E-CID over NRPPa waits 10 s, every LPP answer 20 s. */
const LMF_TIMEOUTS = { nrppaMs: 10_000, lppMs: 20_000 };

/** LMF UE Measurement ID (TS 38.455 9.2.4): 1..15 in the root of the range. */
const MAX_MEASUREMENT_ID = 15;

/** Why a device-side method gave nothing: it cannot do it (409), or it failed this time. */
type DeviceFailure = { ok: false; incapable: boolean; reason: string };

export type NetworkEcidOutcome = { ok: true; report: NetworkEcidReport } | { ok: false; reason: string };
export type UeEcidOutcome =
  { ok: true; measurements: RadioMeasurement[]; cells: UeMeasuredCell[] } | DeviceFailure;
export type GnssLocateOutcome =
  { ok: true; estimate: { lat: number; lon: number; uncertainty: number } } | DeviceFailure;

interface Waiting<T> {
  resolve(value: T | undefined): void;
}

/**
 * The LMF (TS 23.273 4.3.8, TS 38.305): E-CID measurements from the radio over NRPPa and the device's
 * E-CID measurements and GNSS estimate over LPP, each as one request and its answer with a timeout.
 * Answers come back through `nrppaReceived` and `lppReceived`; anything that matches no open request
 * is dropped. Bytes from the network are decoded without throwing.
 */
export function createLmf(deps: { transport: LmfTransport; timers: Timers; timeouts?: typeof LMF_TIMEOUTS }) {
  const { transport, timers } = deps;
  const timeouts = deps.timeouts ?? LMF_TIMEOUTS;
  /** Open E-CID measurements by `imsi/measurement id`. */
  const measurements = new Map<string, Waiting<NetworkEcidOutcome>>();
  /** Open LPP transactions by `imsi/transaction number`. */
  const transactions = new Map<string, Waiting<LppAnswer>>();
  const cancels = new Set<() => void>();
  let nrppaTransaction = 0;
  let lppTransaction = 0;

  /** Waits for `key` in `table` to be answered, or `ms`; undefined on timeout. */
  function wait<T>(table: Map<string, Waiting<T>>, key: string, ms: number, send: () => boolean) {
    return new Promise<T | undefined>((resolve) => {
      const cancel = timers.after(ms, () => finish(undefined));
      cancels.add(cancel);
      function finish(value: T | undefined): void {
        cancel();
        cancels.delete(cancel);
        table.delete(key);
        resolve(value);
      }
      table.set(key, { resolve: finish });
      if (!send()) finish(undefined);
    });
  }

  function freeMeasurementId(imsi: string): number | undefined {
    for (let id = 1; id <= MAX_MEASUREMENT_ID; id++) if (!measurements.has(`${imsi}/${id}`)) return id;
    return undefined;
  }

  /** One LPP request and the device's answer in the same transaction (TS 37.355 5.2). */
  async function exchange(
    imsi: string,
    message: (transaction: number) => Uint8Array,
  ): Promise<LppAnswer | undefined> {
    // Transaction numbers are 0..255 (TS 37.355 6.4.1); a number still open for this device is skipped.
    let transaction = lppTransaction;
    for (let i = 0; i < 256 && transactions.has(`${imsi}/${transaction}`); i++)
      transaction = (transaction + 1) % 256;
    lppTransaction = (transaction + 1) % 256;
    return wait(transactions, `${imsi}/${transaction}`, timeouts.lppMs, () =>
      transport.sendLpp(imsi, message(transaction)),
    );
  }

  /**
   * Capabilities first (TS 37.355 5.1.1), then Request Location Information. The capability answer, or
   * the failure that ends the exchange.
   */
  async function askDevice(
    imsi: string,
    request: LppRequest,
  ): Promise<{ ok: true; information: ProvideLocationInformationr9IEs } | DeviceFailure> {
    if (!(await transport.reach(imsi, timeouts.lppMs)))
      return { ok: false, incapable: false, reason: 'the device could not be reached (paging unanswered)' };
    const capabilities = await exchange(imsi, (t) => encodeLppMessage(requestCapabilities(t, request)));
    const failed = failure(capabilities, 'capabilities');
    if (failed) return failed;
    if (!capable(request, (capabilities as { capabilities: ProvideCapabilitiesr9IEs }).capabilities))
      return { ok: false, incapable: true, reason: INCAPABLE[request] };
    const location = await exchange(imsi, (t) => encodeLppMessage(requestLocationInformation(t, request)));
    const failedLocation = failure(location, 'location');
    if (failedLocation) return failedLocation;
    return {
      ok: true,
      information: (location as { information: ProvideLocationInformationr9IEs }).information,
    };
  }

  return {
    /** E-CID network based: E-CID Measurement Initiation, on demand, to the device's radio. */
    async ecidNetwork(imsi: string, rat: 'nr' | 'eutra'): Promise<NetworkEcidOutcome> {
      if (!(await transport.reach(imsi, timeouts.nrppaMs)))
        return { ok: false, reason: 'the device could not be reached (paging unanswered)' };
      const measurementId = freeMeasurementId(imsi);
      if (measurementId === undefined) return { ok: false, reason: 'too many E-CID measurements open' };
      const transaction = nrppaTransaction;
      nrppaTransaction = (nrppaTransaction + 1) % 32768;
      const pdu = encodeNrppaPdu(ecidMeasurementInitiationRequest(transaction, measurementId, rat));
      const answer = await wait(measurements, `${imsi}/${measurementId}`, timeouts.nrppaMs, () =>
        transport.sendNrppa(imsi, pdu),
      );
      return answer ?? { ok: false, reason: 'no E-CID answer from the radio within 10 s' };
    },

    /** E-CID UE assisted: the device's NR E-CID or E-UTRA E-CID measurements over LPP. */
    async ueEcid(imsi: string, rat: 'nr' | 'eutra'): Promise<UeEcidOutcome> {
      const request = rat === 'nr' ? 'nr-ecid' : 'ecid';
      const answer = await askDevice(imsi, request);
      if (!answer.ok) return answer;
      const measured = ueMeasurementsOf(request, answer.information);
      return measured.ok ? measured : { ok: false, incapable: false, reason: measured.reason };
    },

    /** GNSS standalone: the device's own GPS estimate over LPP. */
    async gnss(imsi: string): Promise<GnssLocateOutcome> {
      const answer = await askDevice(imsi, 'gnss');
      if (!answer.ok) return answer;
      const estimate = gnssEstimateOf(answer.information);
      return estimate.ok ? estimate : { ok: false, incapable: false, reason: estimate.reason };
    },

    /** An NRPPa PDU of the device's radio (Uplink UE Associated NRPPa Transport). */
    nrppaReceived(imsi: string, bytes: Uint8Array): void {
      const decoded = decodeNrppaPdu(bytes);
      if (!decoded.ok) return;
      const answer = ecidAnswerOf(decoded.value);
      if (answer === undefined) return;
      measurements
        .get(`${imsi}/${answer.measurementId}`)
        ?.resolve(
          answer.kind === 'report'
            ? { ok: true, report: answer.report }
            : { ok: false, reason: `the radio refused the E-CID measurement (${answer.cause})` },
        );
    },

    /** An LPP message of the device (UL NAS Transport, payload container type LPP). */
    lppReceived(imsi: string, bytes: Uint8Array): void {
      const decoded = decodeLppMessage(bytes);
      if (!decoded.ok) return;
      const answer = lppAnswerOf(decoded.value);
      if (answer !== undefined) transactions.get(`${imsi}/${answer.transaction}`)?.resolve(answer);
    },

    /** Every open request ends unanswered (the AMF stops). */
    stop(): void {
      for (const waiting of [...measurements.values(), ...transactions.values()]) waiting.resolve(undefined);
    },
  };
}

const INCAPABLE: Record<LppRequest, string> = {
  'nr-ecid': 'its device does not support NR E-CID measurements (LPP capabilities: no SS-RSRP)',
  ecid: 'its device does not support E-UTRA E-CID measurements (LPP capabilities: no RSRP)',
  gnss: 'its device does not support standalone GNSS (LPP capabilities: no A-GNSS standalone mode)',
};

/** The failure an LPP answer means for a step that wanted `wanted`, or undefined when it is that answer. */
function failure(
  answer: LppAnswer | undefined,
  wanted: 'capabilities' | 'location',
): DeviceFailure | undefined {
  if (answer === undefined)
    return { ok: false, incapable: false, reason: 'no LPP answer from the device within 20 s' };
  if (answer.kind === 'error') return { ok: false, incapable: false, reason: answer.reason };
  if (answer.kind !== wanted)
    return {
      ok: false,
      incapable: false,
      reason: `the device answered with ${answer.kind} instead of ${wanted}`,
    };
  return undefined;
}
