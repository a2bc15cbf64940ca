import type { Executor } from '../../storage/transaction.ts';

export interface Slice {
  id: number;
  name: string;
  sst: number;
  /** Lower-case hex, or undefined when the slice has no SD. */
  sd: string | undefined;
}

const toSlice = (row: { id: number; name: string; sst: number; sd: string | null }): Slice => ({
  id: row.id,
  name: row.name,
  sst: row.sst,
  sd: row.sd ?? undefined,
});

export function createSlicesRepository(db: Executor) {
  return {
    async list(limit: number, offset: number): Promise<Slice[]> {
      const rows = await db
        .selectFrom('slices')
        .select(['id', 'name', 'sst', 'sd'])
        .orderBy('name')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map(toSlice);
    },

    /** Every slice's S-NSSAI, for the operator configuration the network functions read. */
    async snssais(executor: Executor = db): Promise<{ sst: number; sd: string | null }[]> {
      return executor.selectFrom('slices').select(['sst', 'sd']).orderBy('name').execute();
    },

    async count(): Promise<number> {
      const row = await db
        .selectFrom('slices')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async findByName(name: string, executor: Executor = db): Promise<Slice | undefined> {
      const row = await executor
        .selectFrom('slices')
        .select(['id', 'name', 'sst', 'sd'])
        .where('name', '=', name)
        .executeTakeFirst();
      return row && toSlice(row);
    },

    async insert(slice: Omit<Slice, 'id'>, executor: Executor = db): Promise<number> {
      const row = await executor
        .insertInto('slices')
        .values({ name: slice.name, sst: slice.sst, sd: slice.sd ?? null })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async update(id: number, values: { sst: number; sd: string | undefined }, executor: Executor = db) {
      await executor
        .updateTable('slices')
        .set({ sst: values.sst, sd: values.sd ?? null })
        .where('id', '=', id)
        .execute();
    },

    async delete(id: number, executor: Executor = db): Promise<void> {
      await executor.deleteFrom('slices').where('id', '=', id).execute();
    },
  };
}

export type SlicesRepository = ReturnType<typeof createSlicesRepository>;
