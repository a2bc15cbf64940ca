import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createConfigurationEvents } from '../../src/core/configuration-events.ts';
import type { ConfigurationChange } from '../../src/network/ports/configuration-events.ts';
import {
  localChangeNotices,
  type ChangeNotices,
  type NoticeListener,
} from '../../src/storage/change-notices.ts';

/** Notices as another process on PostgreSQL would send them: the test plays that process. */
function fakeNotices() {
  const listeners = new Map<string, NoticeListener>();
  const missed: (() => void | Promise<void>)[] = [];
  const notices: ChangeNotices = {
    ...localChangeNotices,
    listen: (topic, listener) => {
      listeners.set(topic, listener);
      return () => void listeners.delete(topic);
    },
    onMissed: (listener) => {
      missed.push(listener);
      return () => {};
    },
  };
  return { notices, fromOther: (detail: unknown) => listeners.get('configuration')?.(detail), missed };
}

describe('configuration events across processes', () => {
  it("another process's SMSC link change reaches the listeners here; missed notices make it read again", async () => {
    const fake = fakeNotices();
    const events = createConfigurationEvents({ logger: pino({ level: 'silent' }), notices: fake.notices });
    const heard: ConfigurationChange[] = [];
    events.subscribe((change) => void heard.push(change));

    await fake.fromOther({ resource: 'smsc-link', change: 'changed', name: '' });
    assert.deepEqual(heard, [{ resource: 'smsc-link', change: 'changed', name: '' }]);

    heard.length = 0;
    for (const listener of fake.missed) await listener();
    assert.ok(heard.some((change) => change.resource === 'smsc-link'));
  });
});
