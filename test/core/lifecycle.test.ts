import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createLifecycle } from '../../src/core/lifecycle.ts';

const logger = pino({ level: 'silent' });

function recorder() {
  const events: string[] = [];
  const component = (name: string, failStart = false) => ({
    name,
    start: () => {
      events.push(`start ${name}`);
      if (failStart) throw new Error(`${name} cannot start`);
    },
    stop: () => void events.push(`stop ${name}`),
  });
  return { events, component };
}

describe('lifecycle', () => {
  it('starts in order and stops in reverse, once', async () => {
    const { events, component } = recorder();
    const lifecycle = createLifecycle({ logger });
    for (const name of ['database', 'records', 'jobs', 'http', 'network']) lifecycle.add(component(name));
    await lifecycle.start();
    await Promise.all([lifecycle.stop(), lifecycle.stop()]);
    assert.deepEqual(events, [
      'start database',
      'start records',
      'start jobs',
      'start http',
      'start network',
      'stop network',
      'stop http',
      'stop jobs',
      'stop records',
      'stop database',
    ]);
  });

  it('stops what had started when a start fails, and rethrows', async () => {
    const { events, component } = recorder();
    const lifecycle = createLifecycle({ logger });
    lifecycle.add(component('database'));
    lifecycle.add(component('http', true));
    lifecycle.add(component('network'));
    await assert.rejects(lifecycle.start(), /http cannot start/);
    assert.deepEqual(events, ['start database', 'start http', 'stop http', 'stop database']);
  });

  it('goes on stopping the rest when one stop fails', async () => {
    const stopped: string[] = [];
    const lifecycle = createLifecycle({ logger });
    lifecycle.add({ name: 'database', stop: () => void stopped.push('database') });
    lifecycle.add({
      name: 'http',
      stop: () => {
        throw new Error('broken');
      },
    });
    await lifecycle.start();
    await lifecycle.stop();
    assert.deepEqual(stopped, ['database']);
  });
});
