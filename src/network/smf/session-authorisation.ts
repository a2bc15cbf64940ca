import { PDU_SESSION_TYPE, type SNssai } from '../nas/index.ts';
import type { AuthorisedSession, SubscriptionData } from '../ports/subscription-data.ts';
import { SM_CAUSE } from './sm-cause.ts';

/** The profile as the SMF reads it, with its optional IPv6 pool (network.md 6, 9). */
export type SessionProfile = SubscriptionData['profile'];

/** What a PDU Session Establishment Request asks for (TS 24.501 8.3.1, with UL NAS Transport's IEs). */
interface EstablishmentRequest {
  /** PDU session type IE (9.11.4.11); absent: the network chooses (6.4.1.2: IPv4v6 when the UE can). */
  pduSessionType: number | undefined;
  /** DNN of UL NAS Transport (8.2.10); absent: the default. */
  dnn: string | undefined;
  /** S-NSSAI of UL NAS Transport; absent: the default. */
  sNssai: SNssai | undefined;
}

export type IpType = 'IPv4' | 'IPv6' | 'IPv4v6';

type Authorisation =
  | {
      ok: true;
      dnn: string;
      sNssai: SNssai;
      policy: AuthorisedSession;
      ipType: IpType;
      /** A 5GSM cause the Accept carries when the type granted is not the one asked for (6.4.1.3). */
      typeCause: number | undefined;
    }
  | { ok: false; cause: number };

const sdOf = (slice: { sd?: string | undefined }): number | undefined =>
  slice.sd === undefined ? undefined : parseInt(slice.sd, 16);

const sameSlice = (a: SNssai, b: SNssai): boolean => a.sst === b.sst && a.sd === b.sd;

/** Policy `policy` authorises sessions on `slice` (decisions 9: no slice named means any). */
const onSlice = (policy: AuthorisedSession, slice: SNssai): boolean =>
  policy.slice === undefined || (policy.slice.sst === slice.sst && sdOf(policy.slice) === slice.sd);

/**
 * The PDU session type granted (TS 24.501 6.4.1.2-6.4.1.4): IPv4 from `ue-ip-pool` always, IPv6 only
 * with a `ue-ipv6-pool`. IPv4v6 without an IPv6 pool becomes IPv4 with #50 in the Accept; IPv6
 * without one is rejected #50 (IPv4 only allowed); Ethernet and Unstructured are not served (#28).
 */
function typeFor(
  requested: number | undefined,
  profile: SessionProfile,
): { ipType: IpType; typeCause: number | undefined } | { cause: number } {
  const ipv6 = profile.ueIpv6Pool !== undefined && profile.ueIpv6Pool !== '';
  switch (requested) {
    case undefined:
    case PDU_SESSION_TYPE.ipv4v6:
      return ipv6
        ? { ipType: 'IPv4v6', typeCause: undefined }
        : { ipType: 'IPv4', typeCause: SM_CAUSE.pduSessionTypeIpv4OnlyAllowed };
    case PDU_SESSION_TYPE.ipv4:
      return { ipType: 'IPv4', typeCause: undefined };
    case PDU_SESSION_TYPE.ipv6:
      return ipv6
        ? { ipType: 'IPv6', typeCause: undefined }
        : { cause: SM_CAUSE.pduSessionTypeIpv4OnlyAllowed };
    default:
      return { cause: SM_CAUSE.unknownPduSessionType };
  }
}

/**
 * Authorisation of a PDU session (network.md 6, decisions 9) by the subscriber's profile and the
 * policies that authorise it:
 * - the S-NSSAI requested must be in the UE's allowed NSSAI, else #33 (requested service option not
 *   subscribed); none requested: the first allowed S-NSSAI on which a policy authorises the DNN (or any
 *   DNN when none is requested either);
 * - the DNN requested must be one a policy of the profile names, else #27 (missing or unknown DNN);
 *   named by a policy but not on this slice: #70 (missing or unknown DNN in a slice); none requested:
 *   the data network of the first policy authorising the slice (the subscriber's default DNN);
 * - the PDU session type as `typeFor` says.
 * The policy that matched gives the Session-AMBR and the default QoS flow's 5QI and ARP.
 */
export function authorise(
  request: EstablishmentRequest,
  subscription: { profile: SessionProfile; authorisedSessions: AuthorisedSession[] },
  allowedNssai: readonly SNssai[],
): Authorisation {
  const policies = subscription.authorisedSessions;
  const wanted = request.dnn?.toLowerCase();
  if (wanted !== undefined && !policies.some((p) => p.dataNetwork.toLowerCase() === wanted))
    return { ok: false, cause: SM_CAUSE.missingOrUnknownDnn };
  const matches = (slice: SNssai) => (p: AuthorisedSession) =>
    onSlice(p, slice) && (wanted === undefined || p.dataNetwork.toLowerCase() === wanted);

  let sNssai: SNssai | undefined;
  if (request.sNssai !== undefined) {
    const asked = {
      sst: request.sNssai.sst,
      ...(request.sNssai.sd === undefined ? {} : { sd: request.sNssai.sd }),
    };
    if (!allowedNssai.some((slice) => sameSlice(slice, asked)))
      return { ok: false, cause: SM_CAUSE.requestedServiceOptionNotSubscribed };
    sNssai = asked;
  } else {
    sNssai = allowedNssai.find((slice) => policies.some(matches(slice))) ?? allowedNssai[0];
    if (sNssai === undefined) return { ok: false, cause: SM_CAUSE.requestedServiceOptionNotSubscribed };
  }
  const policy = policies.find(matches(sNssai));
  if (policy === undefined)
    return {
      ok: false,
      cause: wanted === undefined ? SM_CAUSE.missingOrUnknownDnn : SM_CAUSE.missingOrUnknownDnnInASlice,
    };
  const type = typeFor(request.pduSessionType, subscription.profile);
  if ('cause' in type) return { ok: false, cause: type.cause };
  return { ok: true, dnn: policy.dataNetwork, sNssai, policy, ...type };
}
