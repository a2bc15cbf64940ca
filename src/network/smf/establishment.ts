// PDU session establishment (docs/sessions.md; TS 24.501 6.4.1, TS 23.502 4.3.2.2.1): authorisation,
// the session's resources, the Accept in PDU Session Resource Setup Request.
import type { NasMessageOf } from '../nas/index.ts';
import type { AuthorisedSession } from '../ports/subscription-data.ts';
import { parseBitrate } from '../common/bitrate-text.ts';
import { setupRequestTransfer, type HandoverForwarding, type SessionAmbrBps } from './n2-transfers.ts';
import { releaseLocally } from './release.ts';
import { authorise, type SessionProfile } from './session-authorisation.ts';
import { SessionResources } from './session-resources.ts';
import type { SmSession } from './session-table.ts';
import { apiView } from './session-view.ts';
import { SM_CAUSE } from './sm-cause.ts';
import { answerPco, establishmentAccept, establishmentReject } from './sm-messages.ts';
import type { UplinkSmContext } from '../amf/ports/session-management.ts';
import type { N2SmItem } from './ports/amf.ts';
import type { SmfContext } from './smf-context.ts';

/** The QFI of the default QoS flow (network.md 6). */
export const DEFAULT_QFI = 1;
/** Request type "initial request" (TS 24.501 9.11.3.47). */
const INITIAL_REQUEST = 1;

/** The policy's Session-AMBR in bit/s; undefined when a rate does not read. */
export function ambrOf(policy: AuthorisedSession): SessionAmbrBps | undefined {
  const uplinkBps = parseBitrate(policy.ambrUplink);
  const downlinkBps = parseBitrate(policy.ambrDownlink);
  return uplinkBps === undefined || downlinkBps === undefined ? undefined : { uplinkBps, downlinkBps };
}

export type EstablishmentContext = Pick<
  SmfContext,
  'amf' | 'table' | 'events' | 'subscriptionData' | 'userPlane' | 'addresses' | 'teids' | 'logger'
>;

/** PDU Session Establishment Request (TS 24.501 6.4.1.2 network side, TS 23.502 4.3.2.2.1). */
export async function establish(
  ctx: EstablishmentContext,
  ue: UplinkSmContext,
  request: NasMessageOf<'pduSessionEstablishmentRequest'>,
): Promise<void> {
  const { amf, table, userPlane } = ctx;
  const { supi } = ue;
  const { pduSessionId, pti } = request;
  const reject = (cause: number): void =>
    void amf.sendN1(supi, establishmentReject(pduSessionId, pti, cause));
  // 6.4.1.4: a PDU session identity outside 1..15 (9.4) -> #43.
  if (pduSessionId < 1 || pduSessionId > 15) return reject(SM_CAUSE.invalidPduSessionIdentity);
  if (ue.requestType !== undefined && ue.requestType !== INITIAL_REQUEST)
    // Existing-session requests (handover from non-3GPP or EPS) are not served.
    return reject(SM_CAUSE.requestRejectedUnspecified);
  // 6.4.1.2: an initial request for an identity in use replaces that session, released locally.
  const previous = table.get(supi, pduSessionId);
  if (previous !== undefined) releaseLocally(ctx, previous);

  const subscription = await ctx.subscriptionData.getSubscriptionData(supi);
  if (subscription === undefined) return reject(SM_CAUSE.requestedServiceOptionNotSubscribed);
  if (table.has(supi, pduSessionId)) return; // a retransmission was served meanwhile
  const profile: SessionProfile = subscription.profile;
  const granted = authorise(
    { pduSessionType: request.pduSessionType, dnn: ue.dnn, sNssai: ue.sNssai },
    subscription,
    ue.allowedNssai,
  );
  if (!granted.ok) return reject(granted.cause);
  const ambr = ambrOf(granted.policy);
  if (userPlane === undefined || ambr === undefined) return reject(SM_CAUSE.insufficientResources);

  const pools = {
    ipv4: granted.ipType === 'IPv6' ? undefined : profile.ueIpPool,
    ipv6: granted.ipType === 'IPv4' ? undefined : profile.ueIpv6Pool,
  };
  const resources = new SessionResources(ctx, { supi, pduSessionId });
  for (const [family, cidr] of [
    ['ipv4', pools.ipv4],
    ['ipv6', pools.ipv6],
  ] as const) {
    if (cidr === undefined) continue;
    if (!(await resources.leaseAddress(family, cidr))) {
      resources.release();
      // #26: the pool is exhausted (or not a usable pool: the operator's to fix).
      return reject(SM_CAUSE.insufficientResources);
    }
  }
  if (!(await resources.allocateTeid())) {
    resources.release();
    return reject(SM_CAUSE.insufficientResources);
  }
  if (table.has(supi, pduSessionId)) {
    // A retransmission was served while the leases were taken: this one gives its own back.
    resources.release();
    return;
  }
  const installed = resources.installUpfSession({ imsi: supi, ambr });
  if (!installed.ok) {
    ctx.logger.warn({ supi, pduSessionId, error: installed.error }, 'SMF: the UPF refused a session');
    resources.release();
    return reject(SM_CAUSE.insufficientResources);
  }
  const s: SmSession = {
    supi,
    pduSessionId,
    state: { kind: 'setting-up' },
    dnn: granted.dnn,
    sNssai: granted.sNssai,
    ipType: granted.ipType,
    pools,
    resources,
    policy: granted.policy,
    ambr,
    flow: { qfi: DEFAULT_QFI, fiveQi: granted.policy.var5qi, arp: granted.policy.arp },
    t3591: undefined,
  };
  table.add(s);
  ctx.events.emit('session.established', { supi, session: apiView(s) });
  const accept = establishmentAccept({
    pduSessionId,
    pti,
    ipType: s.ipType,
    typeCause: granted.typeCause,
    ipv4: resources.ipv4,
    ambr,
    flow: s.flow,
    sNssai: s.sNssai,
    dnn: s.dnn,
    pco: answerPco(request.extendedProtocolConfigurationOptions, profile, s.ipType),
  });
  if (!amf.setupResources(supi, { ...setupItem(ctx, s), n1: accept })) releaseLocally(ctx, s);
}

/** The N2 SM item that sets the session's user plane up (PDU Session Resource Setup Request Transfer). */
export function setupItem(
  ctx: Pick<SmfContext, 'userPlane'>,
  s: SmSession,
  forwarding?: HandoverForwarding,
): N2SmItem {
  if (ctx.userPlane === undefined) throw new Error('SMF: a session without a user plane');
  return {
    pduSessionId: s.pduSessionId,
    sNssai: s.sNssai,
    transfer: setupRequestTransfer({
      ambr: s.ambr,
      uplink: { address: ctx.userPlane.n3Address, teid: s.resources.uplinkTeid },
      ipType: s.ipType,
      flow: s.flow,
      ...(forwarding === undefined ? {} : { forwarding }),
    }),
  };
}
