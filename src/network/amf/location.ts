import type { NasMessageOf } from '../nas/index.ts';
import type { AmfContext } from './context/amf-context.ts';
import type { AmfUe } from './context/amf-ue.ts';
import { sendNas } from './gmm/nas-link.ts';
import { pageUe } from './gmm/paging.ts';
import type { LocationManagement } from './ports/location.ts';
import type { LocationEndpoint } from './n2/ue-ngap.ts';
import { isRegistered } from './context/gmm-state.ts';
import { connectionOf, contextSetUp } from './context/cm-state.ts';
import type { NasLinkAmf } from './gmm/nas-link.ts';
import type { LifecycleAmf } from './gmm/ue-lifecycle.ts';

/** The parts of the AMF context this procedure uses. */
type LocationAmf = Pick<AmfContext, 'ngap' | 'timers' | 'ues'> & NasLinkAmf & LifecycleAmf;

/** Payload container type LPP (TS 24.501 9.11.3.40). */
export const PAYLOAD_CONTAINER_LPP = 3;

/**
 * The Routing ID of the one LMF (TS 38.413 9.3.3.13 in NRPPa transport; TS 24.501 5.4.5.3.1 Additional
 * information with LPP), so answers reach it.
 */
const LMF_ROUTING_ID = Uint8Array.of(0x01);

/** How long a request waits for a Location Report, or for a paged device (network.md section 8). */
const CELL_REPORT_WAIT_MS = 5_000;

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((byte, i) => byte === b[i]);

/**
 * The AMF's side of location (TS 23.273 4.3.1): Location Reporting Control for a fresh serving cell,
 * Paging of idle devices, and the transport of the LMF's NRPPa (to the radio) and LPP (to the device,
 * in DL NAS Transport) with their answers routed back to `lmf`. `refreshServingCell` is what the API's
 * locator asks of the AMF; `lmfTransport` is what the LMF asks (the composition wires both).
 */
export function createAmfLocation(amf: LocationAmf, lmf: LocationManagement) {
  /** Requests waiting for a Location Report of the UE (true) or its failure (false). */
  const reportWaiters = new Map<AmfUe, Set<(reported: boolean) => void>>();
  /** Requests waiting for the UE to be CM-CONNECTED with a context in the radio. */
  const connectWaiters = new Map<AmfUe, Set<(connected: boolean) => void>>();

  function wait(table: Map<AmfUe, Set<(ok: boolean) => void>>, ue: AmfUe, ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      let set = table.get(ue);
      if (set === undefined) table.set(ue, (set = new Set()));
      const waiters = set;
      const finish = (ok: boolean): void => {
        cancel();
        waiters.delete(finish);
        if (waiters.size === 0 && table.get(ue) === waiters) table.delete(ue);
        resolve(ok);
      };
      const cancel = amf.timers.after(ms, () => finish(false));
      waiters.add(finish);
    });
  }

  function wake(table: Map<AmfUe, Set<(ok: boolean) => void>>, ue: AmfUe, ok: boolean): void {
    for (const finish of [...(table.get(ue) ?? [])]) finish(ok);
  }

  /**
   * Paging (TS 38.413 8.5.1) by the UE's 5G-S-TMSI over its registration area, once: the Service
   * Request that answers it brings the UE back, and is owed a new 5G-GUTI (TS 24.501 5.4.4.1 a; should
   * the UE come back unpaged, the new 5G-GUTI comes then, which the AMF may give at any time). A UE
   * already paged for another procedure is left to it. False when the UE cannot be paged.
   */
  function page(ue: AmfUe): boolean {
    if (ue.procedure.kind === 'paging' || pageUe(amf, ue) === 0) return false;
    ue.gutiReallocationPending = true;
    return true;
  }

  const registered = (imsi: string): AmfUe | undefined => {
    const ue = amf.ues.bySupi(imsi);
    return ue !== undefined && isRegistered(ue) ? ue : undefined;
  };

  /** The LMF's needs of the AMF (lmf/ports/amf-transport.ts): reach the device, carry NRPPa and LPP. */
  const lmfTransport = {
    async reach(imsi: string, withinMs: number): Promise<boolean> {
      const ue = registered(imsi);
      if (ue === undefined) return false;
      if (contextSetUp(ue)) return true;
      if (connectionOf(ue) === undefined && !page(ue)) return false;
      return wait(connectWaiters, ue, withinMs);
    },
    sendNrppa(imsi: string, pdu: Uint8Array): boolean {
      const ue = registered(imsi);
      const connection = ue === undefined ? undefined : connectionOf(ue);
      return connection !== undefined && amf.ngap.sendNrppa(connection, LMF_ROUTING_ID, pdu);
    },
    sendLpp(imsi: string, message: Uint8Array): boolean {
      const ue = registered(imsi);
      return (
        ue !== undefined &&
        sendNas(
          amf,
          ue,
          {
            messageType: 'dlNasTransport',
            payloadContainerType: PAYLOAD_CONTAINER_LPP,
            payloadContainer: message,
            additionalInformation: LMF_ROUTING_ID,
          },
          { kind: 'current' },
        )
      );
    },
  };

  /**
   * Asks the radio for the device's current cell: Location Reporting Control when the device is
   * connected, Paging when it is idle. True once a report came, false after the wait (network.md 8).
   */
  async function refreshServingCell(imsi: string): Promise<boolean> {
    const ue = registered(imsi);
    if (ue === undefined) return false;
    const connection = connectionOf(ue);
    if (connection === undefined) {
      // The Initial UE Message of the Service Request carries the cell (TS 38.413 8.6.1).
      return page(ue) && wait(connectWaiters, ue, CELL_REPORT_WAIT_MS);
    }
    if (!amf.ngap.requestLocationReport(connection)) return false;
    return wait(reportWaiters, ue, CELL_REPORT_WAIT_MS);
  }

  const endpoint: LocationEndpoint<AmfUe> = {
    locationReported(connection, reported) {
      const ue = connection.owner;
      if (ue !== undefined) wake(reportWaiters, ue, reported);
    },
    nrppa(connection, routingId, nrppaPdu) {
      const supi = connection.owner?.supi;
      if (supi !== undefined && sameBytes(routingId, LMF_ROUTING_ID)) lmf.nrppaReceived(supi, nrppaPdu);
    },
  };

  return {
    refreshServingCell,
    lmfTransport,
    endpoint,

    /** UL NAS Transport with payload container type LPP: the device's answer, for the LMF it names. */
    lppReceived(ue: AmfUe, message: NasMessageOf<'ulNasTransport'>): void {
      const routing = message.additionalInformation;
      if (ue.supi === undefined || (routing !== undefined && !sameBytes(routing, LMF_ROUTING_ID))) return;
      lmf.lppReceived(ue.supi, message.payloadContainer);
    },

    /** Initial Context Setup succeeded: the UE is reachable for NAS and NRPPa again. */
    ueConnected(ue: AmfUe): void {
      wake(connectWaiters, ue, true);
    },

    /** Every wait ends (the AMF stops). */
    stop(): void {
      for (const ue of [...reportWaiters.keys()]) wake(reportWaiters, ue, false);
      for (const ue of [...connectWaiters.keys()]) wake(connectWaiters, ue, false);
    },
  };
}

export type AmfLocation = ReturnType<typeof createAmfLocation>;
