/**
 * How long a change notice takes from one core to another on PostgreSQL (src/storage/change-notices.ts):
 * two storages on one throwaway cluster (test/helpers/postgres-cluster.ts), each with its own pool and
 * listening connection, as two processes would have; one sends a notice, the time until the other hears
 * it is taken, one notice at a time. `npx tsx bench/change-notices.ts [--notices N]`.
 * docs/postgresql.md keeps the figures.
 */
import { parseArgs } from 'node:util';
import { openStorage } from '../src/storage/storage.ts';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';

const { values } = parseArgs({ options: { notices: { type: 'string', default: '300' } } });
const NOTICES = Number(values.notices);

const cluster = await startPostgresCluster();
try {
  cluster.psql('CREATE DATABASE core');
  const sender = await openStorage({ path: cluster.url('core'), poolSize: 2 });
  const receiver = await openStorage({ path: cluster.url('core'), poolSize: 2 });
  const times: number[] = [];
  for (let i = 0; i < NOTICES; i += 1) {
    const heard = new Promise<void>((resolve) => {
      const stop = receiver.notices.listen('bench', () => {
        stop();
        resolve();
      });
    });
    const sent = performance.now();
    sender.notices.send('bench', i);
    await heard;
    times.push(performance.now() - sent);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(2);
  process.stdout.write(
    `${NOTICES} notices: median ${at(0.5)} ms, 99th percentile ${at(0.99)} ms, max ${at(1)} ms\n`,
  );
  await sender.close();
  await receiver.close();
} finally {
  cluster.stop();
}
