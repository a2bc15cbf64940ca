import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createNetworkEvents } from '../../../src/network/events/network-events.ts';

/** The emitter over a logger whose lines the test reads. */
function setup() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { events: createNetworkEvents({ logger: pino({ level: 'error' }, sink) }), lines };
}

describe('NetworkEvents', () => {
  it('delivers an event to the listeners of its name, in the order they subscribed', () => {
    const { events } = setup();
    const heard: string[] = [];
    events.on('ue.registered', (e) => void heard.push(`first ${e.supi}`));
    events.on('ue.registered', (e) => void heard.push(`second ${e.supi}`));
    events.on('ue.deregistered', (e) => void heard.push(`deregistered ${e.supi}`));
    const registration = {
      radioAccessTypes: ['5G'],
      imei: '',
      cipheringAlgorithm: 'NEA0',
      integrityAlgorithm: 'NIA2',
    };
    events.emit('ue.registered', { supi: '001010000000001', radio: 'gnb-1', registration });
    assert.deepEqual(heard, ['first 001010000000001', 'second 001010000000001']);
  });

  it('hands every listener the emitted payload itself (no copy per listener)', () => {
    const { events } = setup();
    const payload = { supi: '001010000000001' };
    const seen: unknown[] = [];
    events.on('ue.deregistered', (e) => void seen.push(e));
    events.on('ue.deregistered', (e) => void seen.push(e));
    events.emit('ue.deregistered', payload);
    assert.equal(seen[0], payload);
    assert.equal(seen[1], payload);
  });

  it('stops delivering to a listener once it unsubscribed; unsubscribing twice changes nothing', () => {
    const { events } = setup();
    const heard: string[] = [];
    const stop = events.on('radio.disconnected', (e) => void heard.push(`a ${e.id}`));
    events.on('radio.disconnected', (e) => void heard.push(`b ${e.id}`));
    events.emit('radio.disconnected', { id: '001:01:000001' });
    stop();
    stop();
    events.emit('radio.disconnected', { id: '001:01:000002' });
    assert.deepEqual(heard, ['a 001:01:000001', 'b 001:01:000001', 'b 001:01:000002']);
  });

  it('keeps two subscriptions of one function apart: unsubscribing one leaves the other', () => {
    const { events } = setup();
    let count = 0;
    const listener = () => void count++;
    const stopFirst = events.on('ue.deregistered', listener);
    events.on('ue.deregistered', listener);
    stopFirst();
    events.emit('ue.deregistered', { supi: '001010000000001' });
    assert.equal(count, 1);
  });

  it('logs a listener that throws and still runs the others, then goes on emitting', () => {
    const { events, lines } = setup();
    const heard: number[] = [];
    events.on('session.released', () => {
      throw new Error('listener defect');
    });
    events.on('session.released', (e) => void heard.push(e.pduSessionId));
    events.emit('session.released', { supi: '001010000000001', pduSessionId: 5 });
    events.emit('session.released', { supi: '001010000000001', pduSessionId: 6 });
    assert.deepEqual(heard, [5, 6]);
    assert.equal(lines.length, 2);
    assert.equal(lines[0]?.msg, 'a network event listener failed');
    assert.equal(lines[0]?.event, 'session.released');
    assert.equal((lines[0]?.err as { message: string }).message, 'listener defect');
  });

  it('applies a subscription made during an emit from the next emit on', () => {
    const { events } = setup();
    const heard: string[] = [];
    events.on('ue.deregistered', () => {
      events.on('ue.deregistered', (e) => void heard.push(`late ${e.supi}`));
    });
    events.emit('ue.deregistered', { supi: '1' });
    assert.deepEqual(heard, []);
    events.emit('ue.deregistered', { supi: '2' });
    assert.deepEqual(heard, ['late 2']);
  });

  it('delivers an event emitted by a listener to that event’s listeners at once', () => {
    const { events } = setup();
    const heard: string[] = [];
    events.on('ue.seen', (e) =>
      events.emit('ue.servingCellChanged', { supi: e.supi, servingCell: e.servingCell! }),
    );
    events.on('ue.servingCellChanged', (e) => void heard.push(e.servingCell.cellIdentity));
    const cell = { rat: 'nr' as const, mcc: '001', mnc: '01', tac: '000001', cellIdentity: '00000001f' };
    events.emit('ue.seen', { supi: '1', radio: 'gnb-1', servingCell: cell });
    assert.deepEqual(heard, ['00000001f']);
  });

  it('emits to no one without listeners', () => {
    const { events, lines } = setup();
    events.emit('radio.updated', { id: '001:01:000001' });
    assert.equal(lines.length, 0);
  });

  it('refuses an async listener at compile time', () => {
    const { events } = setup();
    // @ts-expect-error a listener returning a promise is refused: its failure would escape the emitter
    const stop = events.on('ue.deregistered', async () => undefined);
    stop();
  });
});
