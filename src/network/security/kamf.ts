// KAMF from KSEAF (TS 33.501 A.7.1), with the ABBA this core signals: the AUSF puts ABBA in its
// challenge, the AMF in Security Mode Command and in the derivation (TS 33.501 6.7.2).
import { deriveKamf } from '../../crypto/key-hierarchy.ts';

/** TS 33.501 A.7.1 / TS 24.501 9.11.3.10: ABBA 0x0000, no feature needing another value is supported. */
export const ABBA: Buffer = Buffer.from([0x00, 0x00]);

/** TS 33.501 A.7.1: KAMF for the AMF from KSEAF, the SUPI and ABBA. */
export function kamfFromKseaf(kseaf: Buffer, supi: string, abba: Buffer = ABBA): Buffer {
  return deriveKamf(kseaf, supi, abba);
}
