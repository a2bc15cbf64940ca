import type { FastifyInstance } from 'fastify';

/** Headers every answer carries: no sniffing, no framing, no caching of API data, no referrer. */
export function securityHeaders(options: { tls: boolean }): Record<string, string> {
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'referrer-policy': 'no-referrer',
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'no-store',
  };
  if (options.tls) headers['strict-transport-security'] = 'max-age=31536000';
  return headers;
}

export function installSecurityHeaders(app: FastifyInstance, options: { tls: boolean }): void {
  const headers = securityHeaders(options);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
