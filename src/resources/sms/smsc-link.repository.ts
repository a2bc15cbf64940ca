import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { SmscLinkTable } from '../../storage/tables/sms.ts';

/** The one SMSC link configuration (migration 0020), its password sealed. */
type SmscLinkRow = Omit<SmscLinkTable, 'id'>;

export function createSmscLinkRepository(db: Db) {
  return {
    async get(executor: Executor = db): Promise<SmscLinkRow | undefined> {
      const row = await executor
        .selectFrom('smsc_link')
        .select(['host', 'port', 'system_id', 'password_sealed', 'system_type', 'enabled', 'updated_at'])
        .where('id', '=', 1)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      // Integers may come back as strings from PostgreSQL.
      return {
        ...row,
        port: Number(row.port),
        enabled: Number(row.enabled),
        updated_at: Number(row.updated_at),
      };
    },
    async put(row: SmscLinkRow, executor: Executor): Promise<void> {
      await executor
        .insertInto('smsc_link')
        .values({ id: 1, ...row })
        .onConflict((oc) => oc.column('id').doUpdateSet(row))
        .execute();
    },
    /** True when there was one. */
    async delete(executor: Executor): Promise<boolean> {
      const result = await executor.deleteFrom('smsc_link').where('id', '=', 1).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type SmscLinkRepository = ReturnType<typeof createSmscLinkRepository>;
