import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { deferredChildLogger } from '../../src/http/deferred-request-logger.ts';
import { createLogger } from '../../src/logging.ts';

function sinkLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger('info', sink);
  let children = 0;
  const parent = new Proxy(logger, {
    get(target, property, receiver) {
      if (property === 'child') {
        return (...args: Parameters<typeof logger.child>) => {
          children += 1;
          return target.child(...args);
        };
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  }) as unknown as FastifyBaseLogger;
  return { lines, parent, children: () => children };
}

describe('the per-request logger', () => {
  it('builds no pino child for a request that logs nothing', () => {
    const { parent, children } = sinkLogger();
    const log = deferredChildLogger(parent, { reqId: 'req-1' }, {});
    assert.equal(log.level, 'info');
    assert.equal(children(), 0);
  });

  it('writes what a pino child writes, request id and redaction included, once it logs', () => {
    const { lines, parent, children } = sinkLogger();
    const log = deferredChildLogger(parent, { reqId: 'req-2' }, {});
    log.error({ err: new Error('boom'), body: { password: 'hunter2' } }, 'request failed');
    log.debug('below the level');
    log.warn('second line');
    assert.equal(children(), 1);
    assert.equal(lines.length, 2);
    assert.equal(lines[0]?.reqId, 'req-2');
    assert.equal(lines[0]?.msg, 'request failed');
    assert.deepEqual(lines[0]?.body, { password: '[redacted]' });
    assert.equal((lines[0]?.err as { message: string }).message, 'boom');
    assert.equal(lines[1]?.reqId, 'req-2');
  });
});
