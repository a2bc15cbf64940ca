import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Candidate } from './candidate.ts';
import { checkColumnTypes } from './column-types.ts';
import { checkIdentityRows } from './identity-rows.ts';
import { checkSealedValues } from './sealed-values.ts';
import { checkStoredJson } from './stored-json.ts';
import { checkStoredValues } from './stored-values.ts';
import { checkTimestamps } from './timestamps.ts';

/**
 * What the service will trust in a database a restore is about to install, checked row by row: the first
 * problem found, or undefined. Types first: the later checks read values as their declared types. The
 * checks yield to the event loop as they go, so the service keeps serving during a large restore.
 */
export async function restoredRowsProblem(
  candidate: Candidate,
  secretBox: SecretBox,
): Promise<string | undefined> {
  return (
    (await checkColumnTypes(candidate)) ??
    (await checkTimestamps(candidate)) ??
    (await checkIdentityRows(candidate)) ??
    (await checkStoredJson(candidate)) ??
    (await checkStoredValues(candidate)) ??
    (await checkSealedValues(candidate, secretBox))
  );
}
