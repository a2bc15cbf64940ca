import type { App } from '../http/app-types.ts';
import { TextResponse } from '../http/schemas.ts';
import type { Metrics } from './metrics.ts';

export function metricsRoutes(deps: { metrics: Metrics }) {
  const { metrics } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/metrics',
      {
        config: { permission: 'metrics:read' },
        schema: {
          tags: ['operations'],
          summary: 'Metrics in the Prometheus text exposition format',
          description:
            'HTTP requests and latency by route, retention deletions, database size, the Node.js process ' +
            'metrics and whatever else the service registers. Scrape it with an API token.',
          response: {
            200: TextResponse('Prometheus text format 0.0.4'),
          },
        },
      },
      async (_request, reply) => reply.type(metrics.contentType).send(await metrics.render()),
    );
  };
}
