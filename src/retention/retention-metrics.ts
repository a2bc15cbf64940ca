import type { Metrics } from '../metrics/metrics.ts';

/** Counts the records retention deletes, by record type, from what each enforcement run reports. */
export function createRetentionMetrics(metrics: Metrics) {
  const deleted = metrics.counter({
    name: 'pmn_retention_deleted_records_total',
    help: 'Records deleted by retention, by record type',
    labelNames: ['record_type'],
  });
  return {
    /** Adds one enforcement run's counts (a type with 0 still gets its series, so dashboards show it). */
    record(counts: Record<string, number>): void {
      for (const [recordType, count] of Object.entries(counts))
        deleted.inc({ record_type: recordType }, count);
    },
  };
}
