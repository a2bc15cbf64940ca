import type { SNssai } from '../../nas/index.ts';
import type { Snssai, SubscriptionData } from '../../ports/subscription-data.ts';

const sdNumber = (slice: Snssai): number | undefined =>
  slice.sd === undefined ? undefined : parseInt(slice.sd, 16);

const same = (a: SNssai, b: SNssai): boolean => a.sst === b.sst && a.sd === b.sd;

/**
 * The allowed NSSAI of a registration (TS 24.501 5.5.1.2.4, TS 23.501 5.15.5.2.1): the operator's slices
 * that a policy authorising the subscriber's profile allows (decisions section 9: a policy without a
 * slice allows any), restricted to the requested ones; when none of the requested ones is allowed, or
 * none was requested, every allowed slice (the subscribed defaults). Empty: no slice is available.
 */
export function allowedNssaiFor(
  requested: readonly SNssai[] | undefined,
  operatorSlices: readonly Snssai[],
  subscription: SubscriptionData,
): SNssai[] {
  const authorised = (slice: Snssai): boolean =>
    subscription.authorisedSessions.some(
      (session) =>
        session.slice === undefined ||
        (session.slice.sst === slice.sst && sdNumber(session.slice) === sdNumber(slice)),
    );
  const allowed: SNssai[] = operatorSlices.filter(authorised).map((slice) => {
    const sd = sdNumber(slice);
    return sd === undefined ? { sst: slice.sst } : { sst: slice.sst, sd };
  });
  const wanted = allowed.filter((slice) =>
    (requested ?? []).some((r) => same({ sst: r.sst, ...(r.sd === undefined ? {} : { sd: r.sd }) }, slice)),
  );
  // TS 24.501 9.11.3.37: an NSSAI holds at most 8 S-NSSAIs.
  return (wanted.length > 0 ? wanted : allowed).slice(0, 8);
}
