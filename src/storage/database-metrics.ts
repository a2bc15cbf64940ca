import type { Metrics } from '../metrics/metrics.ts';
import type { SqliteFile } from './sqlite-file.ts';

export function registerDatabaseMetrics(metrics: Metrics, file: SqliteFile): void {
  metrics.gauge({
    name: 'pmn_database_size_bytes',
    help: 'Size of the SQLite database (pages in use and free pages, without the WAL)',
    collect: () => file.sizeBytes(),
  });
}
