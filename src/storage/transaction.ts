import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** A repository call runs on the database or inside a caller's transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;
