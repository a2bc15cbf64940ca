import type { SNssai } from '../nas/index.ts';
import type { StoredSnssai } from '../ports/ue-contexts.ts';

/** An S-NSSAI as the UE context record holds it (ports/ue-contexts.ts): no SD as null, plain JSON. */
export const storedSnssai = (slice: SNssai): StoredSnssai => ({ sst: slice.sst, sd: slice.sd ?? null });
