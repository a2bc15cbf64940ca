import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

type Labels<L extends string> = Record<L, string | number>;

interface CounterMetric<L extends string> {
  inc(labels: Labels<L>, value?: number): void;
  /** The series of these label values, for a hot path that updates it often (skips label hashing). */
  series(labels: Labels<L>): { inc(value?: number): void };
}

interface HistogramMetric<L extends string> {
  observe(labels: Labels<L>, value: number): void;
  series(labels: Labels<L>): { observe(value: number): void };
}

/** One value of a gauge; a gauge without labels may return a plain number instead. */
interface GaugeSample<L extends string> {
  labels: Labels<L>;
  value: number;
}

interface MetricOptions<L extends string> {
  /** `pmn_<area>_<what>_<unit>`, as Prometheus names go. */
  name: string;
  help: string;
  labelNames?: readonly L[];
}

/**
 * Label names that would carry a person's or a device's identity. Every value of a label becomes a time
 * series kept by Prometheus for weeks, so such values never go into labels.
 */
const PERSONAL_LABELS = new Set(['imsi', 'supi', 'suci', 'imei', 'imeisv', 'msisdn', 'gpsi', 'email', 'ip']);

function checkLabels(name: string, labelNames: readonly string[]): void {
  for (const label of labelNames) {
    if (PERSONAL_LABELS.has(label.toLowerCase())) {
      throw new Error(`metric ${name}: label "${label}" would carry personal data`);
    }
  }
}

/**
 * The service's metrics, in one registry per app (so several apps in one process do not collide). Any
 * part of the service registers what it measures here: counters and histograms it updates as work
 * happens, and gauges whose `collect` is called at each scrape (so they cost nothing in between).
 * The Node.js process metrics (CPU, memory, event loop, GC, handles) are included.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  return {
    counter<L extends string = never>(options: MetricOptions<L>): CounterMetric<L> {
      checkLabels(options.name, options.labelNames ?? []);
      const counter = new Counter({
        name: options.name,
        help: options.help,
        labelNames: options.labelNames ?? [],
        registers: [registry],
      });
      return {
        inc: (labels, value = 1) => counter.inc(labels, value),
        series: (labels) => counter.labels(labels),
      };
    },

    histogram<L extends string = never>(
      options: MetricOptions<L> & { buckets?: number[] },
    ): HistogramMetric<L> {
      checkLabels(options.name, options.labelNames ?? []);
      const histogram = new Histogram({
        name: options.name,
        help: options.help,
        labelNames: options.labelNames ?? [],
        ...(options.buckets ? { buckets: options.buckets } : {}),
        registers: [registry],
      });
      return {
        observe: (labels, value) => histogram.observe(labels, value),
        series: (labels) => histogram.labels(labels),
      };
    },

    /** A gauge read at each scrape; series missing from one `collect` disappear from that scrape. */
    gauge<L extends string = never>(
      options: MetricOptions<L> & {
        collect: () => number | GaugeSample<L>[] | Promise<number | GaugeSample<L>[]>;
      },
    ): void {
      checkLabels(options.name, options.labelNames ?? []);
      new Gauge({
        name: options.name,
        help: options.help,
        labelNames: options.labelNames ?? [],
        registers: [registry],
        async collect() {
          const value = await options.collect();
          this.reset();
          if (typeof value === 'number') this.set(value);
          else for (const sample of value) this.set(sample.labels, sample.value);
        },
      });
    },

    /**
     * The sum of a metric's series now (a gauge's `collect` runs), or undefined when none has that name:
     * the status and summary endpoints read the figures the scrape shows without rendering it all.
     */
    async read(name: string): Promise<number | undefined> {
      const metric = registry.getSingleMetric(name);
      if (metric === undefined) return undefined;
      const { values } = await metric.get();
      return values.reduce((sum, sample) => sum + sample.value, 0);
    },

    contentType: registry.contentType,

    /** Every metric in the Prometheus text exposition format. */
    render: (): Promise<string> => registry.metrics(),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
