import type { Executor } from '../storage/transaction.ts';

export function createRetentionPoliciesRepository(db: Executor) {
  return {
    async findDays(recordType: string): Promise<number | undefined> {
      const row = await db
        .selectFrom('retention_policies')
        .select('days')
        .where('record_type', '=', recordType)
        .executeTakeFirst();
      return row?.days;
    },

    async upsertDays(recordType: string, days: number, executor: Executor = db): Promise<void> {
      await executor
        .insertInto('retention_policies')
        .values({ record_type: recordType, days })
        .onConflict((oc) => oc.column('record_type').doUpdateSet({ days }))
        .execute();
    },
  };
}

export type RetentionPoliciesRepository = ReturnType<typeof createRetentionPoliciesRepository>;
