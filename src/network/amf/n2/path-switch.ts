import type { Cause, UESecurityCapabilities } from '../../ngap/generated/types.ts';
import { pathSwitchUnsuccessfulTransfer } from '../../ngap/path-switch-unsuccessful-transfer.ts';
import { nextHop } from '../../security/handover-keys.ts';
import type { AmfContext } from '../context/amf-context.ts';
import { pathSwitchRequestAcknowledge, pathSwitchRequestFailure } from './path-switch-messages.ts';
import type { PathSwitchItem, PathSwitchOutcome } from '../ports/session-management.ts';
import { ngapAllowedNssai, ngapSecurityCapabilities } from './ngap-ue-values.ts';
import type { PathSwitchEndpoint, ReceivedPathSwitchRequest } from './ue-ngap.ts';
import type { RadioLink } from './ue-signalling.ts';
import { isRegistered } from '../context/gmm-state.ts';
import { connectionOf } from '../context/cm-state.ts';

/** The parts of the AMF context this procedure uses. */
type PathSwitchAmf = Pick<AmfContext, 'logger' | 'ngap' | 'smf' | 'ueContexts' | 'accessKeyChanging'>;

/** The four algorithm bit strings of UE Security Capabilities (TS 38.413 9.3.1.86) are the same. */
function sameCapabilities(a: UESecurityCapabilities, b: UESecurityCapabilities): boolean {
  const bits = (c: UESecurityCapabilities) =>
    [
      c.nRencryptionAlgorithms,
      c.nRintegrityProtectionAlgorithms,
      c.eUTRAencryptionAlgorithms,
      c.eUTRAintegrityProtectionAlgorithms,
    ].map((s) => `${s.length}:${Buffer.from(s.bytes).toString('hex')}`);
  return bits(a).join() === bits(b).join();
}

/** Every session of the request, released with `cause` (for Path Switch Request Failure). */
function releasedAll(items: readonly PathSwitchItem[], cause: Cause): PathSwitchItem[] {
  const transfer = pathSwitchUnsuccessfulTransfer(cause);
  return items.map(({ pduSessionId }) => ({ pduSessionId, transfer }));
}

/**
 * Xn based inter NG-RAN handover, the AMF's part (TS 23.502 4.9.1.2.2; TS 38.413 8.4.4): the target
 * node's Path Switch Request names the UE by the source's AMF UE NGAP ID. The SMF switches each PDU
 * session's downlink to the target's tunnel (the UPF sends an End Marker down the old one); at least one
 * switched -> Path Switch Request Acknowledge with the next {NH, NCC} (TS 33.501 6.9.2.3.3), the UE
 * security capabilities the AMF holds and the Switched and Released lists, and the connection moves to
 * the target (new RAN UE NGAP ID, same AMF UE NGAP ID) with the serving cell of the request's User
 * Location Information. An unknown UE, a UE without an AS security context, repeated PDU session ids
 * (8.4.4.4) or no session switched -> Path Switch Request Failure, nothing changed.
 */
export function createPathSwitch(amf: PathSwitchAmf): PathSwitchEndpoint {
  return {
    pathSwitchRequest(request: ReceivedPathSwitchRequest, radio: RadioLink, streamId: number): void {
      const { ranUeNgapId, sourceAmfUeNgapId } = request;
      const toBeSwitched: PathSwitchItem[] = request.pduSessionResourceToBeSwitchedDlList.map((item) => ({
        pduSessionId: item.pDUSessionID,
        transfer: item.pathSwitchRequestTransfer,
      }));
      const fail = (released: PathSwitchItem[]): void => {
        radio.send(
          pathSwitchRequestFailure(
            { amfUeNgapId: sourceAmfUeNgapId, ranUeNgapId },
            released.map((item) => ({
              pDUSessionID: item.pduSessionId,
              pathSwitchRequestUnsuccessfulTransfer: item.transfer,
            })),
          ),
          streamId,
        );
      };

      const connection = amf.ngap.connectionByAmfId(sourceAmfUeNgapId);
      const ue = connection?.owner;
      if (connection === undefined || ue === undefined || connectionOf(ue) !== connection) {
        amf.logger.info(
          { radio: radio.name, sourceAmfUeNgapId },
          'AMF: Path Switch Request for an unknown AMF UE NGAP ID',
        );
        return fail(releasedAll(toBeSwitched, { choice: 'radioNetwork', value: 'unknown-local-UE-NGAP-ID' }));
      }
      const ids = new Set(toBeSwitched.map((item) => item.pduSessionId));
      if (ids.size !== toBeSwitched.length)
        return fail(
          releasedAll(toBeSwitched, { choice: 'radioNetwork', value: 'multiple-PDU-session-ID-instances' }),
        );
      const security = ue.security;
      const chain = connection.accessKeys;
      const capability = ue.ueSecurityCapability;
      if (
        !isRegistered(ue) ||
        ue.supi === undefined ||
        security?.status !== 'current' ||
        chain === undefined ||
        capability === undefined ||
        connection.phase !== 'active'
      )
        return fail(
          releasedAll(toBeSwitched, {
            choice: 'protocol',
            value: 'message-not-compatible-with-receiver-state',
          }),
        );
      // TS 33.501 6.9.5: no {NH, NCC} while the UE's AS key changes (n2/handover.ts says why); the target
      // releases the UE, which comes back by Service Request with a KgNB of the new KAMF.
      if (amf.accessKeyChanging(ue))
        return fail(
          releasedAll(toBeSwitched, { choice: 'radioNetwork', value: 'interaction-with-other-procedure' }),
        );

      // TS 33.501 6.7.3.1: the AMF checks the capabilities the target got from the source against its
      // own; on a mismatch it logs the event and sends its own in the Acknowledge (as it always does).
      const held = ngapSecurityCapabilities(capability);
      const received = request.ueSecurityCapabilities;
      if (received !== undefined && !sameCapabilities(received, held))
        amf.logger.warn(
          { supi: ue.supi, radio: radio.name },
          'AMF: UE security capabilities in Path Switch Request differ from those the AMF holds',
        );

      const outcome: PathSwitchOutcome = amf.smf?.pathSwitched(ue.supi, toBeSwitched) ?? {
        switched: [],
        released: releasedAll(toBeSwitched, { choice: 'misc', value: 'unspecified' }),
      };
      // TS 38.413 8.4.4.3: not one session switched -> the request fails.
      if (outcome.switched.length === 0) return fail(outcome.released);

      const next = nextHop(security.kamf, chain);
      if (!amf.ngap.switchPath(connection, radio, ranUeNgapId, request.userLocationInformation)) return;
      connection.accessKeys = next;
      radio.send(
        pathSwitchRequestAcknowledge(
          { amfUeNgapId: connection.amfUeNgapId, ranUeNgapId },
          {
            ueSecurityCapabilities: held,
            securityContext: next,
            switched: outcome.switched.map((item) => ({
              pDUSessionID: item.pduSessionId,
              pathSwitchRequestAcknowledgeTransfer: item.transfer,
            })),
            released: outcome.released.map((item) => ({
              pDUSessionID: item.pduSessionId,
              pathSwitchRequestUnsuccessfulTransfer: item.transfer,
            })),
            allowedNssai: ngapAllowedNssai(ue.allowedNssai),
          },
        ),
        connection.streamId,
      );
      // The sessions' downlink tunnels now end at the target radio.
      amf.ueContexts.save(ue);
    },
  };
}
