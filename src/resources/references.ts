import { ConflictError } from '../errors.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../storage/constraint-errors.ts';

/** Who holds a reference: a few names to show and how many there are in all. */
interface Holders {
  /** Singular and plural noun: `['policy', 'policies']`. */
  noun: readonly [string, string];
  names: string[];
  total: number;
}

/** How many holder names a message lists before it says "and N more". */
export const SHOWN_HOLDERS = 5;

function describe({ noun, names, total }: Holders): string {
  const word = total === 1 ? noun[0] : noun[1];
  if (names.length === 0) return `${total} ${word}`;
  const more = total - names.length;
  return `${word} ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/**
 * Throws the 409 for deleting something still referenced, naming what holds it:
 * "cannot delete slice default: it is used by policy internet-default".
 */
export function refuseIfReferenced(what: string, holders: Holders[]): void {
  const held = holders.filter((h) => h.total > 0);
  if (held.length === 0) return;
  throw new ConflictError(`cannot delete ${what}: it is used by ${held.map(describe).join(' and by ')}`);
}

/**
 * Runs a change and turns the constraint violations the database raises into 409s. The services check
 * references and duplicates first for a helpful message; these are the database's own guarantees for any
 * interleaving the checks did not see (another process writing the same database, for one).
 */
export async function withConstraintConflicts<T>(
  messages: { duplicate?: string; reference?: string },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (messages.duplicate && isUniqueViolation(error)) throw new ConflictError(messages.duplicate);
    if (messages.reference && isForeignKeyViolation(error)) throw new ConflictError(messages.reference);
    throw error;
  }
}
