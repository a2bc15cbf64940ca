import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.ts';

/** Requests that matched no route share one label value, so scanning random URLs cannot grow the series. */
const UNMATCHED = 'unmatched';

/**
 * Counts every answered request and observes its latency, labelled by the route template
 * (`/api/v1/users/:email`, never the concrete URL) and the method; the counter also by status.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  const requests = metrics.counter({
    name: 'pmn_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status',
    labelNames: ['route', 'method', 'status'],
  });
  const duration = metrics.histogram({
    name: 'pmn_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by route template and method',
    labelNames: ['route', 'method'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });

  // Every request updates two series; looking them up by one string key is cheaper than letting the
  // client hash the label objects each time. Keys are bounded: route templates x methods x statuses.
  const series = new Map<string, { count: { inc(): void }; time: { observe(value: number): void } }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    const key = `${route} ${request.method} ${reply.statusCode}`;
    let entry = series.get(key);
    if (!entry) {
      entry = {
        count: requests.series({ route, method: request.method, status: reply.statusCode }),
        time: duration.series({ route, method: request.method }),
      };
      series.set(key, entry);
    }
    entry.count.inc();
    entry.time.observe(reply.elapsedTime / 1000);
    done();
  });
}
