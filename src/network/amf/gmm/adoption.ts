// A dead member's registered UEs adopted by this one, its backup (docs/amf-set.md, "A dead member's
// idle devices"; TS 23.501 5.21.2.3: downlink data and paging for the dead member's devices are taken
// over too, paging under the old 5G-GUTI from the new owner).
import type { UeContextRecord } from '../../ports/ue-contexts.ts';
import type { AmfContext } from '../context/amf-context.ts';
import { registrationOf, restoredSecurity, takeRecord } from './takeover.ts';
import { becomeIdle } from './ue-lifecycle.ts';

/** How many records one batch reads and adopts, and the pause before the next (the event loop's turn). */
export interface AdoptionPacing {
  batch: number;
  pauseMs: number;
}

const DEFAULT_ADOPTION_PACING: AdoptionPacing = { batch: 100, pauseMs: 10 };

/**
 * What one run adopted, how many records it deleted as no member can serve them, and how many it left in
 * the store for the on-demand takeover.
 */
interface AdoptionOutcome {
  adopted: number;
  forgotten: number;
  left: number;
}

/**
 * Makes the UE of `record` this AMF's, idle: its context rebuilt as a takeover does (the downlink COUNT
 * above the stored one; no message yet, so the uplink COUNT is the stored one until the UE's next message
 * re-estimates it), ownership by compare-and-set on the record's epoch, its PDU sessions on this SMF and
 * UPF with their addresses and the user plane down (the UPF buffers downlink and the SMF asks for Paging
 * under the 5G-GUTI the UE holds, the dead member's). A record no member can serve from the store (not
 * registered, no 5G-GUTI or security context, an unknown algorithm, a downlink COUNT too near its end:
 * the UE must register again, which replaces it) is deleted, fenced by its epoch, so that it no longer
 * holds its sessions' addresses (the lease sweep frees what no record names). One this AMF could not
 * take (another member won it, or this AMF is full) stays for the UE's own Service Request.
 */
async function adoptUe(amf: AmfContext, record: UeContextRecord): Promise<'adopted' | 'forgotten' | 'left'> {
  const security = restoredSecurity(record);
  if (security === undefined) return (await amf.ueContexts.discard(record)) ? 'forgotten' : 'left';
  const ue = await takeRecord(amf, record, security);
  if (ue === undefined) return 'left';
  // No connection: CM-IDLE with the mobile reachable timer, as a UE whose AN was released (5.3.7).
  becomeIdle(amf, ue);
  // The API of every member shows it registered here at once, with the sessions restored above.
  amf.events.emit('ue.adopted', { supi: record.supi, registration: registrationOf(ue) });
  return 'adopted';
}

/**
 * Adopts the UEs the store says `owner` (a member whose lease ran out) owns, `pacing.batch` records at a
 * time with `pacing.pauseMs` between batches on the AMF's timers, so a large member's UEs never hold the
 * event loop. A record that is not adopted is passed over (the next batch starts after it); a store that
 * cannot be read ends the run, logged. Two members running this for one owner each adopt only the UEs
 * whose compare-and-set they win.
 */
export async function adoptUesOf(
  amf: AmfContext,
  owner: string,
  pacing: AdoptionPacing = DEFAULT_ADOPTION_PACING,
): Promise<AdoptionOutcome> {
  const outcome: AdoptionOutcome = { adopted: 0, forgotten: 0, left: 0 };
  let after = '';
  for (;;) {
    let records: UeContextRecord[];
    try {
      records = await amf.ueContexts.ownedBy(owner, after, pacing.batch);
    } catch (error) {
      amf.logger.error({ err: error, owner }, `AMF set: the UE contexts of ${owner} could not be read`);
      break;
    }
    for (const record of records) outcome[await adoptUe(amf, record)]++;
    const last = records.at(-1);
    if (last === undefined || records.length < pacing.batch) break;
    after = last.supi;
    await new Promise<void>((resolve) => amf.timers.after(pacing.pauseMs, resolve));
  }
  amf.logger.info(
    { owner, ...outcome },
    `AMF set: adopted ${outcome.adopted} UEs of ${owner}, whose lease ran out (${outcome.forgotten} records no member can serve deleted, ${outcome.left} left for their takeover)`,
  );
  return outcome;
}
