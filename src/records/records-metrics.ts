import type { Metrics } from '../metrics/metrics.ts';

/**
 * The records pipeline's metrics: records accepted, by record type, counted as they are offered; the
 * records waiting in the writer's queue, by record type, read at each scrape; failed transactions tried
 * again, and records given up after the writer's retry bound.
 */
export function createRecordsMetrics(metrics: Metrics) {
  const ingested = metrics.counter({
    name: 'pmn_records_ingested_total',
    help: 'Records accepted by the records pipeline, by record type',
    labelNames: ['record_type'],
  });
  const retries = metrics.counter({
    name: 'pmn_records_write_retries_total',
    help: 'Records writer transactions that failed and were tried again (the database unreachable, read-only or full)',
  });
  const lost = metrics.counter({
    name: 'pmn_records_lost_total',
    help: 'Records given up after the writer failed to store them for its retry bound, by record type',
    labelNames: ['record_type'],
  });
  return {
    accepted: (recordType: string, records: number): void => {
      ingested.inc({ record_type: recordType }, records);
    },
    retried: (): void => {
      retries.inc({});
    },
    lost: (recordType: string, records: number): void => {
      lost.inc({ record_type: recordType }, records);
    },

    /** Exposes the depth of the writer's queue. */
    watch(writer: { depthByKind(): ReadonlyMap<string, number> }): void {
      metrics.gauge({
        name: 'pmn_records_queue_depth',
        help: 'Records accepted and waiting to be written, by record type',
        labelNames: ['record_type'],
        collect: () =>
          [...writer.depthByKind()].map(([recordType, value]) => ({
            labels: { record_type: recordType },
            value,
          })),
      });
    },
  };
}
