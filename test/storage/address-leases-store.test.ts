import { after } from 'node:test';
import { createAddressLeasesStore } from '../../src/storage/network-ports/address-leases-store.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { addressLeasesContract } from '../network/working-state/address-leases.contract.ts';

/**
 * The SQL address leases (migration 0023) against the port's contract, on the run's database
 * (PostgreSQL with PMN_TEST_DB=postgres, else SQLite), each case on a fresh database.
 */
const opened: Storage[] = [];
const open = async (): Promise<Storage> => {
  const storage = await openStorage({ path: onPostgres ? await freshPostgresDatabase() : ':memory:' });
  opened.push(storage);
  return storage;
};
after(async () => {
  for (const storage of opened) await storage.close();
});

addressLeasesContract(onPostgres ? 'PostgreSQL' : 'SQLite', async () =>
  createAddressLeasesStore({ db: (await open()).db, owner: 'amf-a', clock: { now: () => Date.now() } }),
);
