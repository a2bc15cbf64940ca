import type { AmfDescription, Guami } from './amf-messages.ts';
import { sameGuami } from './amf-messages.ts';

/**
 * The NAS node selection function of a gNB with associations to several AMFs (TS 38.300 4.2: AMF
 * selection and routing of NAS to an AMF; TS 23.501 6.3.5 and 5.21.2): which AMF gets a UE's Initial UE
 * Message. A UE that names its AMF (a 5G-S-TMSI, or a GUAMI) goes to the AMF serving that GUAMI; when
 * that AMF's association is lost, or it declared the GUAMI unavailable (AMF Status Indication, TS 38.413
 * 8.7.6), to the backup AMF named for the GUAMI; failing that to another AMF of the same AMF set; a UE
 * that names none, or an AMF of a set no AMF here serves, to an AMF chosen by relative capacity
 * (weighted). Pure: the node gives the AMFs as it knows them and a random source.
 */

/** One AMF the node has (or had) an association to. */
export interface AmfCandidate {
  /** NG Setup accepted and the association up: only such an AMF is chosen. */
  ready: boolean;
  /** The AMF as it last described itself (kept after its association is lost, for its GUAMIs' sake). */
  amf: AmfDescription | undefined;
  /** The GUAMIs it declared unavailable by AMF Status Indication. */
  unavailableGuamis: readonly Guami[];
}

/** What a UE tells the radio of its AMF (TS 38.331 RRCSetupComplete: ng-5G-S-TMSI or registeredAMF). */
export type UeAmfHint =
  { kind: 's-tmsi'; amfSetId: number; amfPointer: number } | { kind: 'guami'; guami: Guami } | undefined;

export type SelectionReason =
  /** The AMF serving the UE's GUAMI. */
  | 'guami'
  /** The backup AMF named for the GUAMI (by AMF Status Indication, else in the ServedGUAMIList). */
  | 'backup'
  /** Another AMF of the GUAMI's AMF set, by relative capacity (TS 23.501 5.21.2.3). */
  | 'same-set'
  /** Any AMF, by relative capacity (TS 23.501 6.3.5). */
  | 'capacity';

interface AmfSelection<C extends AmfCandidate> {
  candidate: C;
  reason: SelectionReason;
}

/** `random` in [0, 1) (Math.random unless a test gives its own). Undefined when no AMF is ready. */
export function selectAmf<C extends AmfCandidate>(
  candidates: readonly C[],
  hint: UeAmfHint,
  random: () => number = Math.random,
): AmfSelection<C> | undefined {
  const ready = candidates.filter((candidate) => candidate.ready);
  if (hint !== undefined) {
    const matches = (guami: Guami): boolean => matchesHint(guami, hint);
    const owner = ownerOf(candidates, matches);
    const declared = candidates
      .flatMap((candidate) => candidate.unavailableGuamis)
      .find((guami) => matches(guami));
    if (owner !== undefined && owner.candidate.ready && declared === undefined) {
      return { candidate: owner.candidate, reason: 'guami' };
    }
    // TS 38.413 8.7.6.2: a backup named by the AMF Status Indication comes first; else the one the
    // ServedGUAMIList named (TS 23.501 5.21.2.3).
    const backupName = declared?.backupAmfName ?? owner?.guami.backupAmfName;
    const backup = ready.find(
      (candidate) =>
        backupName !== undefined &&
        candidate.amf?.name === backupName &&
        candidate !== owner?.candidate &&
        !candidate.unavailableGuamis.some((guami) => matches(guami)),
    );
    if (backup !== undefined) return { candidate: backup, reason: 'backup' };
    const sameSet = taking(ready).filter(
      (candidate) =>
        candidate !== owner?.candidate &&
        (candidate.amf?.servedGuamis ?? []).some((guami) => inSetOf(guami, hint)),
    );
    const chosen = weighted(sameSet, random);
    if (chosen !== undefined) return { candidate: chosen, reason: 'same-set' };
  }
  const chosen = weighted(taking(ready), random) ?? weighted(ready, random);
  return chosen === undefined ? undefined : { candidate: chosen, reason: 'capacity' };
}

/**
 * The AMFs that take new UEs: not one that declared its own GUAMI (the first it lists) unavailable, as a
 * draining AMF does (TS 38.413 8.7.6.2, TS 23.501 5.21.2.2). When every AMF did, all of them: a UE still
 * gets one.
 */
function taking<C extends AmfCandidate>(candidates: readonly C[]): C[] {
  const open = candidates.filter((candidate) => {
    const own = candidate.amf?.servedGuamis[0];
    return own === undefined || !candidate.unavailableGuamis.some((guami) => sameGuami(guami, own));
  });
  return open.length > 0 ? open : [...candidates];
}

/**
 * The AMF serving a GUAMI: of the AMFs listing it, the one listing it earliest. The AMFs of a set each
 * list the set's GUAMIs (a peer's as its backup) with their own first, as this core does; an AMF that
 * lists only its own needs no rule.
 */
function ownerOf<C extends AmfCandidate>(
  candidates: readonly C[],
  matches: (guami: Guami) => boolean,
): { candidate: C; guami: Guami } | undefined {
  let best: { candidate: C; guami: Guami; index: number } | undefined;
  for (const candidate of candidates) {
    const served = candidate.amf?.servedGuamis ?? [];
    const index = served.findIndex(matches);
    if (index >= 0 && (best === undefined || index < best.index)) {
      best = { candidate, guami: served[index]!, index };
    }
  }
  return best;
}

/** A 5G-S-TMSI names AMF Set ID and Pointer only (TS 23.003 2.11); a GUAMI names all of it. */
function matchesHint(guami: Guami, hint: NonNullable<UeAmfHint>): boolean {
  if (hint.kind === 'guami') return sameGuami(guami, hint.guami);
  return inSetOf(guami, hint) && Number.parseInt(guami.pointer, 16) === hint.amfPointer;
}

function inSetOf(guami: Guami, hint: NonNullable<UeAmfHint>): boolean {
  if (hint.kind === 's-tmsi') return Number.parseInt(guami.setId, 16) === hint.amfSetId;
  const { plmn, regionId, setId } = hint.guami;
  return (
    guami.plmn.mcc === plmn.mcc &&
    guami.plmn.mnc === plmn.mnc &&
    guami.regionId === regionId &&
    guami.setId === setId
  );
}

/**
 * One of `candidates` with probability proportional to its RelativeAMFCapacity (TS 38.413, 0..255;
 * TS 23.501 6.3.5 weight factor). An AMF of capacity 0 takes no new UEs while another has some; all of
 * capacity 0 share alike. An AMF that gave none counts as 1.
 */
function weighted<C extends AmfCandidate>(candidates: readonly C[], random: () => number): C | undefined {
  if (candidates.length === 0) return undefined;
  const capacities = candidates.map((candidate) => candidate.amf?.relativeCapacity ?? 1);
  const total = capacities.reduce((sum, capacity) => sum + capacity, 0);
  const weights = total === 0 ? capacities.map(() => 1) : capacities;
  let left = Math.min(Math.max(random(), 0), 0.999999999) * (total === 0 ? candidates.length : total);
  for (let i = 0; i < candidates.length; i++) {
    left -= weights[i]!;
    if (left < 0) return candidates[i];
  }
  return candidates[candidates.length - 1];
}
