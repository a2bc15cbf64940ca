// Secondary RAT usage data (TS 23.502 4.21, TS 38.413 8.16.1): the volumes a radio reports a session
// carried over a secondary RAT (e.g. NR under dual connectivity). The SMF would pass them to charging;
// this core has none, and the UPF already counts the same packets into the subscriber's usage
// (network.md 7), so they are counted apart (`pmn_secondary_rat_octets_total`) and logged, never added.
import { decodeComplete } from '../asn1/complete.ts';
import { decodeSecondaryRATDataUsageReportTransfer } from '../ngap/generated/codec.ts';
import type { VolumeTimedReportList } from '../ngap/generated/types.ts';
import type { SecondaryRatType } from '../events/network-events.ts';
import type { SmfContext } from './smf-context.ts';

const ALIGNED = true;

const RAT_TYPES: readonly SecondaryRatType[] = ['nr', 'eutra', 'nr-unlicensed', 'e-utra-unlicensed'];

const ratTypeOf = (value: string | number): SecondaryRatType =>
  RAT_TYPES.find((rat) => rat === value) ?? 'other';

/** Octets up and down over the report's time windows. */
function volumes(reports: VolumeTimedReportList): { uplink: number; downlink: number } {
  let uplink = 0;
  let downlink = 0;
  for (const report of reports) {
    uplink += report.usageCountUL;
    downlink += report.usageCountDL;
  }
  return { uplink, downlink };
}

/**
 * Secondary RAT Data Usage Report Transfer (TS 38.413 9.3.4) of one session: the PDU session level
 * report when there is one (it covers all the session's QoS flows), else the QoS flow level reports,
 * summed per RAT type. A session the SMF does not hold, or a transfer that does not read, is not counted.
 */
export function secondaryRatUsageReported(
  ctx: Pick<SmfContext, 'table' | 'events' | 'logger'>,
  supi: string,
  pduSessionId: number,
  transfer: Uint8Array,
): void {
  if (ctx.table.get(supi, pduSessionId) === undefined) return;
  const read = decodeComplete(transfer, ALIGNED, decodeSecondaryRATDataUsageReportTransfer);
  if (!read.ok) {
    ctx.logger.warn(
      { supi, pduSessionId, error: read.error },
      'SMF: unreadable Secondary RAT Data Usage Report Transfer',
    );
    return;
  }
  const usage = read.value.secondaryRATUsageInformation;
  const byRat = new Map<SecondaryRatType, { uplink: number; downlink: number }>();
  const add = (rat: string | number, reports: VolumeTimedReportList): void => {
    const type = ratTypeOf(rat);
    const sum = byRat.get(type) ?? { uplink: 0, downlink: 0 };
    const more = volumes(reports);
    byRat.set(type, { uplink: sum.uplink + more.uplink, downlink: sum.downlink + more.downlink });
  };
  if (usage?.pDUSessionUsageReport !== undefined)
    add(usage.pDUSessionUsageReport.rATType, usage.pDUSessionUsageReport.pDUSessionTimedReportList);
  else
    for (const flow of usage?.qosFlowsUsageReportList ?? []) add(flow.rATType, flow.qoSFlowsTimedReportList);
  for (const [ratType, { uplink, downlink }] of byRat) {
    ctx.logger.debug(
      { supi, pduSessionId, ratType, uplinkOctets: uplink, downlinkOctets: downlink },
      'SMF: secondary RAT data usage reported',
    );
    ctx.events.emit('session.secondaryRatUsage', {
      supi,
      pduSessionId,
      ratType,
      uplinkOctets: uplink,
      downlinkOctets: downlink,
    });
  }
}
