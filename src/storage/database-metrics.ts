import type { Metrics } from '../metrics/metrics.ts';
import type { Storage } from './storage.ts';

export function registerDatabaseMetrics(metrics: Metrics, storage: Pick<Storage, 'sizeBytes'>): void {
  metrics.gauge({
    name: 'pmn_database_size_bytes',
    help: 'Size of the database (SQLite: pages in use and free pages, without the WAL; PostgreSQL: pg_database_size)',
    collect: () => storage.sizeBytes(),
  });
}
