import type { Guti } from '../../network/nas/ie/mobile-identity.ts';
import type { AmfDescription } from '../amf-messages.ts';
import type { MultiAmfGnb } from '../gnb-amfs.ts';
import type { ServiceOutcome, SimulatedUe } from './simulated-ue.ts';
import { withConcurrency } from './ue-fleet.ts';
import type { UeSessions } from './ue-sessions.ts';

/**
 * What a UE whose serving AMF died should see when it continues on a peer of the AMF set (TS 23.501
 * 5.21.2.3; docs/amf-set.md): its next NAS message (a Service Request from idle) reaches the backup AMF
 * through its gNB, which serves it with the context the set stored: the same 5G-GUTI, no Registration,
 * no Identity Request, no authentication, its PDU sessions with the same addresses. Used by
 * `npm run sim -- ue --scenario failover`, the AMF-set system tests and bench/amf-set-failover.ts.
 */

/** NAS messages that would mean the UE was not continued but started over. */
const STARTED_OVER = {
  registrations: { direction: 'uplink', type: 'registrationRequest' },
  identityRequests: { direction: 'downlink', type: 'identityRequest' },
  authentications: { direction: 'downlink', type: 'authenticationRequest' },
} as const;

type Counted = keyof typeof STARTED_OVER;

/** Counts, per UE, the NAS messages that mean a UE started over (from its NAS events). */
export class NasTally {
  readonly #counts = new Map<SimulatedUe, Record<Counted, number>>();

  constructor(ues: readonly SimulatedUe[]) {
    for (const ue of ues) {
      const counts = { registrations: 0, identityRequests: 0, authentications: 0 };
      this.#counts.set(ue, counts);
      ue.on((event) => {
        if (event.type !== 'nas') return;
        for (const [name, { direction, type }] of Object.entries(STARTED_OVER) as [
          Counted,
          (typeof STARTED_OVER)[Counted],
        ][])
          if (event.exchange.direction === direction && event.exchange.messageType === type) counts[name]++;
      });
    }
  }

  /** The UE's counts so far (a copy). */
  of(ue: SimulatedUe): Record<Counted, number> {
    return { ...(this.#counts.get(ue) ?? { registrations: 0, identityRequests: 0, authentications: 0 }) };
  }
}

/** `001-01 region 1 set 1 pointer 2 tmsi 0000002a`: a 5G-GUTI as the simulator prints it. */
function gutiText(g: Guti | undefined): string {
  if (g === undefined) return 'no 5G-GUTI';
  return `${g.mcc}-${g.mnc} region ${g.amfRegionId.toString(16)} set ${g.amfSetId.toString(16)} pointer ${g.amfPointer} tmsi ${g.tmsi.toString(16).padStart(8, '0')}`;
}

/** A UE as it was before its AMF was lost. */
export interface UeBefore {
  ue: SimulatedUe;
  sessions: UeSessions;
  guti: string;
  /** Each PDU session's IPv4 address (or `-`), by PDU session id. */
  addresses: Map<number, string>;
  /** The AMF that served it (by its 5G-GUTI's AMF Pointer, among the gNB's AMFs). */
  servedBy: string | undefined;
  counts: Record<Counted, number>;
}

/** Takes note of the UE before the loss. */
export function noteBefore(
  ue: SimulatedUe,
  sessions: UeSessions,
  gnb: MultiAmfGnb,
  tally: NasTally,
): UeBefore {
  return {
    ue,
    sessions,
    guti: gutiText(ue.guti),
    addresses: new Map(sessions.all().map((s) => [s.pduSessionId, s.ipv4 ?? '-'])),
    servedBy: amfByPointer(gnb, ue.guti?.amfPointer),
    counts: tally.of(ue),
  };
}

/** The name of the AMF whose own GUAMI (the first of its list) has this AMF Pointer. */
function amfByPointer(gnb: MultiAmfGnb, pointer: number | undefined): string | undefined {
  if (pointer === undefined) return undefined;
  const own = (amf: AmfDescription | undefined) => amf?.servedGuamis[0]?.pointer ?? '';
  return gnb.amfs.find((amf) => Number.parseInt(own(amf), 16) === pointer)?.name;
}

/** What became of one UE after the loss. */
export interface Continuation {
  imsi: string;
  outcome: ServiceOutcome;
  /** The AMF that accepted its Service Request. */
  servedBy: string | undefined;
  before: UeBefore;
  guti: string;
  /** NAS messages since `before` that mean it started over (0 each when it continued). */
  startedOver: Record<Counted, number>;
  /** Sessions with the address they had, and those gone or readdressed. */
  kept: number[];
  lost: number[];
}

/** It continued: accepted, same 5G-GUTI, nothing started over, every session kept. */
export function continued(c: Continuation): boolean {
  return (
    c.outcome.outcome === 'accepted' &&
    c.guti === c.before.guti &&
    Object.values(c.startedOver).every((n) => n === 0) &&
    c.lost.length === 0
  );
}

/**
 * Each idle UE sends its next NAS message: a Service Request for data with its PDU sessions' uplink
 * data (TS 24.501 5.6.1.2), so the AMF reactivates their user plane; the gNB routes it by the UE's
 * 5G-S-TMSI, to the backup AMF when the UE's own AMF is lost (amf-selection.ts). A UE still connected
 * (its AMF alive) is left as it is.
 */
export async function continueOnPeer(
  befores: readonly UeBefore[],
  gnbOf: (ue: SimulatedUe) => MultiAmfGnb,
  tally: NasTally,
  concurrency: number,
): Promise<Continuation[]> {
  return withConcurrency(befores, concurrency, async (before) => {
    const { ue, sessions } = before;
    const ids = sessions.all().map((s) => s.pduSessionId);
    const outcome: ServiceOutcome = ue.connected
      ? { outcome: 'accepted' }
      : await ue
          .serviceRequest('data', ids.length === 0 ? {} : { uplinkData: ids })
          .catch((error: Error) => ({ outcome: 'failed' as const, reason: error.message }));
    const now = tally.of(ue);
    const startedOver = Object.fromEntries(
      Object.entries(now).map(([name, n]) => [name, n - before.counts[name as Counted]]),
    ) as Record<Counted, number>;
    const kept: number[] = [];
    const lost: number[] = [];
    for (const [id, address] of before.addresses)
      ((sessions.get(id)?.ipv4 ?? '-') === address && sessions.get(id) !== undefined ? kept : lost).push(id);
    return {
      imsi: ue.imsi,
      outcome,
      servedBy: gnbOf(ue).servingAmf(ue)?.name,
      before,
      guti: gutiText(ue.guti),
      startedOver,
      kept,
      lost,
    };
  });
}

/** One line per UE: what happened, in the words of the failover scenario. */
export function continuationLine(c: Continuation): string {
  const who = `imsi-${c.imsi}`;
  if (c.outcome.outcome !== 'accepted')
    return `${who}: not continued: service request ${c.outcome.outcome === 'rejected' ? `rejected (${c.outcome.causeName})` : c.outcome.outcome === 'failed' ? `failed: ${c.outcome.reason}` : 'authentication rejected'}`;
  const moved =
    c.servedBy === c.before.servedBy
      ? `still on ${c.servedBy ?? '?'}`
      : `continued on ${c.servedBy ?? '?'} (was ${c.before.servedBy ?? '?'})`;
  const guti = c.guti === c.before.guti ? 'same 5G-GUTI' : `new 5G-GUTI ${c.guti} (was ${c.before.guti})`;
  const { registrations, identityRequests, authentications } = c.startedOver;
  const nas = [
    registrations === 0 ? 'no Registration' : `${registrations} Registration Request(s)`,
    identityRequests === 0 ? undefined : `${identityRequests} Identity Request(s)`,
    authentications === 0 ? 'no authentication' : `${authentications} Authentication Request(s)`,
  ].filter((part) => part !== undefined);
  const sessions = [
    ...c.kept.map((id) => `session ${id} ${c.before.addresses.get(id) ?? '-'} kept`),
    ...c.lost.map((id) => `session ${id} ${c.before.addresses.get(id) ?? '-'} lost`),
  ];
  return [`${who}: ${moved}`, guti, ...nas, ...sessions].join(', ');
}
