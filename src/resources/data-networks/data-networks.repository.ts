import type { Executor } from '../../storage/transaction.ts';

export interface DataNetwork {
  id: number;
  name: string;
}

export function createDataNetworksRepository(db: Executor) {
  return {
    async list(limit: number, offset: number): Promise<DataNetwork[]> {
      return db
        .selectFrom('data_networks')
        .select(['id', 'name'])
        .orderBy('name')
        .limit(limit)
        .offset(offset)
        .execute();
    },

    async count(): Promise<number> {
      const row = await db
        .selectFrom('data_networks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async findByName(name: string, executor: Executor = db): Promise<DataNetwork | undefined> {
      return executor
        .selectFrom('data_networks')
        .select(['id', 'name'])
        .where('name', '=', name)
        .executeTakeFirst();
    },

    async insert(name: string, executor: Executor = db): Promise<number> {
      const row = await executor
        .insertInto('data_networks')
        .values({ name })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async rename(id: number, name: string, executor: Executor = db): Promise<void> {
      await executor.updateTable('data_networks').set({ name }).where('id', '=', id).execute();
    },

    async delete(id: number, executor: Executor = db): Promise<void> {
      await executor.deleteFrom('data_networks').where('id', '=', id).execute();
    },
  };
}

export type DataNetworksRepository = ReturnType<typeof createDataNetworksRepository>;
