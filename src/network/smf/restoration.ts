// PDU sessions taken over from another SMF of the AMF set (docs/amf-set.md, "Takeover"; TS 23.501
// 5.21.2.3, the SM contexts in the UDSF): re-created here from the UE context record, with their
// addresses, on this UPF, the user plane down until the UE's Service Request or registration update
// reactivates it with this UPF's N3 tunnel (PDU Session Resource Setup, TS 23.502 4.2.3.2).
import { PDU_SESSION_TYPE, type SNssai } from '../nas/index.ts';
import type { StoredPduSession } from '../ports/ue-contexts.ts';
import type { EstablishmentContext } from './establishment.ts';
import { authorise } from './session-authorisation.ts';
import { SessionResources } from './session-resources.ts';
import type { SmSession } from './session-table.ts';
import { apiView } from './session-view.ts';

const TYPE_OF: Record<StoredPduSession['ipType'], number> = {
  IPv4: PDU_SESSION_TYPE.ipv4,
  IPv6: PDU_SESSION_TYPE.ipv6,
  IPv4v6: PDU_SESSION_TYPE.ipv4v6,
};

/**
 * Re-creates `stored`, the UE's sessions as its record holds them: each is authorised again by the
 * subscriber's policies as they are now (the slice from the record's allowed NSSAI), keeps its
 * addresses (`AddressLeases.hold`) and QoS, gets an uplink TEID of this UPF, and starts inactive. A
 * session that can no longer be (no policy for it now, its address taken, no user plane, the UPF
 * refuses) is not re-created: the Accept's PDU session status then tells the UE it is gone (TS 24.501
 * 5.6.1.4.1), and the UE releases it locally. Sessions the SMF holds already are left as they are.
 */
export async function restoreSessions(
  ctx: EstablishmentContext,
  supi: string,
  stored: readonly StoredPduSession[],
  allowedNssai: readonly SNssai[],
): Promise<void> {
  const { userPlane, table, logger } = ctx;
  /**
   * The leases of a session not re-created here that came with the record (docs/amf-set.md, "Address
   * hand-over") end: none is left leased to no session. Those `resources` holds end with its release.
   */
  const forgo = (record: StoredPduSession, resources?: SessionResources): void => {
    for (const address of [record.ipv4, record.ipv6Prefix])
      if (address !== null && address !== resources?.ipv4 && address !== resources?.ipv6Prefix)
        ctx.addresses
          .forgo(address, supi)
          .catch((error: unknown) =>
            logger.error({ err: error, supi, address }, 'SMF: a lease handed over was not ended'),
          );
  };
  if (stored.length === 0) return;
  const subscription =
    userPlane === undefined ? undefined : await ctx.subscriptionData.getSubscriptionData(supi);
  if (userPlane === undefined || subscription === undefined) return stored.forEach((record) => forgo(record));
  for (const record of stored) {
    const { pduSessionId } = record;
    if (table.has(supi, pduSessionId)) continue;
    const sNssai = { sst: record.sNssai.sst, ...(record.sNssai.sd === null ? {} : { sd: record.sNssai.sd }) };
    const granted = authorise(
      { pduSessionType: TYPE_OF[record.ipType], dnn: record.dnn, sNssai },
      subscription,
      allowedNssai,
    );
    const pools = {
      ipv4: record.ipv4 === null ? undefined : subscription.profile.ueIpPool,
      ipv6: record.ipv6Prefix === null ? undefined : subscription.profile.ueIpv6Pool,
    };
    const skip = (why: string): void =>
      logger.warn({ supi, pduSessionId, why }, 'SMF: a PDU session taken over was not re-created');
    if (!granted.ok || granted.ipType !== record.ipType) {
      skip('no policy authorises it now');
      forgo(record);
      continue;
    }
    const resources = new SessionResources(ctx, { supi, pduSessionId });
    const held =
      (record.ipv4 === null ||
        (pools.ipv4 !== undefined && (await resources.holdAddress('ipv4', pools.ipv4, record.ipv4)))) &&
      (record.ipv6Prefix === null ||
        (pools.ipv6 !== undefined && (await resources.holdAddress('ipv6', pools.ipv6, record.ipv6Prefix))));
    if (!held || !(await resources.allocateTeid()) || table.has(supi, pduSessionId)) {
      resources.release();
      forgo(record, resources);
      if (!held) skip('its address is not free in its profile pool');
      continue;
    }
    const ambr = { uplinkBps: record.ambr.uplinkBps, downlinkBps: record.ambr.downlinkBps };
    const installed = resources.installUpfSession({ imsi: supi, ambr });
    if (!installed.ok) {
      resources.release();
      forgo(record, resources);
      skip(`the UPF refused it: ${installed.error}`);
      continue;
    }
    // The user plane is down until the UE's request reactivates it: the UPF buffers downlink meanwhile.
    userPlane.deactivate(installed.value.id);
    const s: SmSession = {
      supi,
      pduSessionId,
      state: { kind: 'inactive', downlinkData: false },
      dnn: granted.dnn,
      sNssai: granted.sNssai,
      ipType: granted.ipType,
      pools,
      resources,
      policy: granted.policy,
      ambr,
      flow: { qfi: record.qos.qfi, fiveQi: record.qos.fiveQi, arp: record.qos.arp },
      t3591: undefined,
    };
    table.add(s);
    ctx.events.emit('session.established', { supi, session: apiView(s) });
  }
}
