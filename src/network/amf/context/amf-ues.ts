import type { Guti } from '../../nas/index.ts';
import type { HeldSubscribers } from '../ports/held-subscribers.ts';
import type { AmfUe } from './amf-ue.ts';
import { INITIAL_CM_STATE } from './cm-state.ts';
import { INITIAL_GMM_STATE } from './gmm-state.ts';

/**
 * The AMF's UE contexts, bounded by `limit`: by SUPI once known and by the 5G-TMSI of the 5G-GUTI the
 * UE holds. A context with neither (a registration that has not yet named its subscriber) is found only
 * through its N2 connection. `subscribers` hears each SUPI the index comes to hold and each it no longer holds.
 */
export function createAmfUes({ limit, subscribers }: { limit: number; subscribers?: HeldSubscribers }) {
  const all = new Set<AmfUe>();
  /** Contexts opened beyond `limit` for a UE that may already hold one (`create`'s `provisional`). */
  const provisional = new Set<AmfUe>();
  // Bounds the provisional contexts a burst of requests can hold while their SUPIs are resolved.
  const headroom = Math.max(64, Math.ceil(limit / 100));
  const bySupi = new Map<string, AmfUe>();
  const byTmsi = new Map<number, AmfUe>();
  let nextId = 1;
  /** Drops `guti`'s 5G-TMSI from the index if it names `ue`. */
  const forget = (ue: AmfUe, guti: Guti | undefined): void => {
    if (guti !== undefined && byTmsi.get(guti.tmsi) === ue) byTmsi.delete(guti.tmsi);
  };

  return {
    /**
     * A new, empty context; undefined when `limit` contexts exist. With `provisional` (a registration
     * that may come from a UE the AMF already holds, whose old context it would replace), up to 1% more
     * are opened, each marked `beyondLimit` until `admit` or `remove`.
     */
    create(options: { provisional?: boolean } = {}): AmfUe | undefined {
      const atLimit = all.size >= limit;
      if (atLimit && (options.provisional !== true || all.size >= limit + headroom)) return undefined;
      const ue: AmfUe = {
        id: nextId++,
        supi: undefined,
        suci: undefined,
        unmapped: undefined,
        guti: undefined,
        oldGuti: undefined,
        gutiReallocationPending: false,
        security: undefined,
        ueSecurityCapability: undefined,
        pei: undefined,
        gmm: INITIAL_GMM_STATE,
        allowedNssai: [],
        requestedNssai: undefined,
        pendingAllowedNssai: undefined,
        registrationArea: undefined,
        cm: INITIAL_CM_STATE,
        procedure: { kind: 'none' },
        lastRadio: undefined,
        smsOverNas: false,
        lastKsi: undefined,
      };
      all.add(ue);
      if (atLimit) provisional.add(ue);
      return ue;
    },

    /** Whether `ue` was opened beyond the limit and has not yet shown it replaces a context. */
    beyondLimit: (ue: AmfUe): boolean => provisional.has(ue),
    /** `ue` replaces a context the AMF holds: it no longer counts as beyond the limit. */
    admit: (ue: AmfUe): void => void provisional.delete(ue),

    bySupi: (supi: string): AmfUe | undefined => bySupi.get(supi),
    byTmsi: (tmsi: number): AmfUe | undefined => byTmsi.get(tmsi),
    tmsiInUse: (tmsi: number): boolean => byTmsi.has(tmsi),

    /** Indexes `ue` under its SUPI; returns the other context that held it, if any. */
    setSupi(ue: AmfUe, supi: string): AmfUe | undefined {
      const previous = bySupi.get(supi);
      ue.supi = supi;
      bySupi.set(supi, ue);
      if (previous === undefined) subscribers?.held(supi);
      return previous === ue ? undefined : previous;
    },

    /** Indexes `ue` under the 5G-TMSI of its (new) 5G-GUTI, forgetting the old one. */
    setTmsi(ue: AmfUe, tmsi: number | undefined): void {
      forget(ue, ue.guti);
      forget(ue, ue.oldGuti);
      ue.oldGuti = undefined;
      if (tmsi !== undefined) byTmsi.set(tmsi, ue);
    },

    /**
     * A new 5G-GUTI sent in a Configuration Update Command: the old and the new one both name the UE until
     * `settleGuti` (TS 24.501 5.4.4.2). An older one still unsettled is forgotten.
     */
    replaceGuti(ue: AmfUe, guti: Guti): void {
      forget(ue, ue.oldGuti);
      ue.oldGuti = ue.guti;
      ue.guti = guti;
      byTmsi.set(guti.tmsi, ue);
    },

    /**
     * The UE showed which 5G-GUTI it holds, by its 5G-TMSI `tmsi`: that one names it from now on and the
     * other is invalid (TS 24.501 5.4.4.3, 5.4.4.5).
     */
    settleGuti(ue: AmfUe, tmsi: number | undefined): void {
      const old = ue.oldGuti;
      if (old === undefined) return;
      if (tmsi === old.tmsi) {
        forget(ue, ue.guti);
        ue.guti = old;
      } else forget(ue, old);
      ue.oldGuti = undefined;
    },

    /** Forgets the context entirely. */
    remove(ue: AmfUe): void {
      all.delete(ue);
      provisional.delete(ue);
      if (ue.supi !== undefined && bySupi.get(ue.supi) === ue) {
        bySupi.delete(ue.supi);
        subscribers?.released(ue.supi);
      }
      forget(ue, ue.guti);
      forget(ue, ue.oldGuti);
    },

    has: (ue: AmfUe): boolean => all.has(ue),
    size: (): number => all.size,
    /** Every context. */
    all: (): AmfUe[] => [...all],
    /** Every context with a SUPI, e.g. to find those a configuration change touches. */
    withSupi: (): IterableIterator<AmfUe> => bySupi.values(),
  };
}

export type AmfUes = ReturnType<typeof createAmfUes>;
