import type { NasMessageOf, SNssai } from '../../nas/index.ts';
import type { SubscriptionData } from '../../ports/subscription-data.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { connectionOf } from '../context/cm-state.ts';

/**
 * "IMS voice over PS session supported over 3GPP access" in the 5GS network feature support IE of
 * Registration Accept (TS 24.501 5.5.1.2.4, 9.11.3.5; TS 23.501 5.16.3.2). The AMF says supported only
 * when it can serve the UE with IMS voice, which takes three things:
 *
 * - the UE supports IMS voice: it sent UE's usage setting, which a UE includes when it does (TS 24.501
 *   8.2.6.22);
 * - the network can carry it: the subscriber may establish a session to the IMS data network (`ims`,
 *   the well-known DNN of TS 23.003 9.4) on a slice it is allowed;
 * - the UE's radio capability is compatible with the radio's configuration for IMS voice: the AMF asks
 *   the radio by UE Radio Capability Check (TS 23.502 4.2.8a, TS 38.413 8.14.2; n2/radio-capability-check.ts),
 *   giving it the UE radio capability it holds.
 *
 * Only when the first two hold does the AMF ask, and the IE then says what the radio answered (no answer:
 * not supported). Otherwise the IE is left out, which the UE reads as not supported (9.11.3.5).
 */

/** The DNN of IMS (TS 23.003 9.4: the well-known APN "IMS"; DNNs compare without case, 9.1). */
const IMS_DNN = 'ims';

/** IMS VoPS-3GPP, bit 1 of octet 3 of 5GS network feature support (TS 24.501 9.11.3.5). */
const IMS_VOPS_3GPP = 0x01;

/** Whether the subscriber may reach IMS on one of the slices it is allowed now (a policy's SD is hex). */
function imsAuthorised(subscription: SubscriptionData, allowed: readonly SNssai[]): boolean {
  return subscription.authorisedSessions.some(({ dataNetwork, slice }) => {
    if (dataNetwork.toLowerCase() !== IMS_DNN) return false;
    if (slice === undefined) return true;
    const sd = slice.sd === undefined ? undefined : parseInt(slice.sd, 16);
    return allowed.some((a) => a.sst === slice.sst && a.sd === sd);
  });
}

/**
 * The 5GS network feature support IE for the Registration Accept of `ue`, after the UE Radio Capability
 * Check when it is asked; undefined when the IE is left out.
 */
export async function imsVoiceFeatureSupport(
  amf: Pick<AmfContext, 'radioCapabilityCheck'>,
  ue: AmfUe,
  request: NasMessageOf<'registrationRequest'>,
  subscription: SubscriptionData,
  allowed: readonly SNssai[],
): Promise<Uint8Array | undefined> {
  if (request.ueUsageSetting === undefined || !imsAuthorised(subscription, allowed)) return undefined;
  const connection = connectionOf(ue);
  if (connection === undefined) return undefined;
  const supported = await amf.radioCapabilityCheck.check(connection, ue.radioCapability?.ue);
  return Uint8Array.of(supported ? IMS_VOPS_3GPP : 0);
}
