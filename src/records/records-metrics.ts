import type { Metrics } from '../metrics/metrics.ts';

/**
 * The records pipeline's metrics: records accepted, by record type, counted as they are offered; and the
 * records waiting in the writer's queue, by record type, read at each scrape.
 */
export function createRecordsMetrics(metrics: Metrics) {
  const ingested = metrics.counter({
    name: 'pmn_records_ingested_total',
    help: 'Records accepted by the records pipeline, by record type',
    labelNames: ['record_type'],
  });
  return {
    accepted: (recordType: string, records: number): void => {
      ingested.inc({ record_type: recordType }, records);
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
