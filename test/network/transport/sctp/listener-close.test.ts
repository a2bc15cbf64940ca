import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LISTENER_SHUTDOWN_TIMEOUT_MS,
  type AssociationEvent,
} from '../../../../src/network/transport/n2-transport.ts';
import { ChunkType } from '../../../../src/network/transport/sctp/chunks.ts';
import { SctpEndpoint } from '../../../../src/network/transport/sctp/endpoint.ts';
import { decodePacket } from '../../../../src/network/transport/sctp/packet.ts';
import { ManualTime } from '../../../helpers/manual-time.ts';
import { MemoryNetwork } from './memory-link.ts';

const SERVER = '10.0.0.1';
const ANSWERING = '10.0.0.2';
const VANISHED = '10.0.0.3';
const PORT = 38412;

const firstChunk = (packet: Uint8Array): number | undefined => {
  const decoded = decodePacket(packet);
  return decoded.ok ? decoded.value.chunks[0]?.type : undefined;
};

/**
 * Closing a listener (the service stopping) while one peer answers and another has vanished without
 * SHUTDOWN or ABORT (a radio that lost power): the close must not wait on the SCTP timers.
 */
describe('userland SCTP listener close', () => {
  it('shuts the answering peer down, aborts the vanished one after the bound, and resolves then', async () => {
    const net = new MemoryNetwork();
    const time = new ManualTime();
    const endpoint = (address: string) =>
      new SctpEndpoint({ kind: 'udp', link: net.link(address), clock: time, timers: time });
    const server = endpoint(SERVER);
    const events = new Map<string, AssociationEvent[]>();
    const listener = await server.listen({ addresses: [SERVER], port: PORT }, (association) => {
      const list: AssociationEvent[] = [];
      events.set(association.remote.address, list);
      return { message: () => undefined, event: (event) => list.push(event) };
    });
    for (const address of [ANSWERING, VANISHED]) {
      const pending = endpoint(address).connect({ remote: [{ address: SERVER, port: PORT }] }, () => ({
        message: () => undefined,
        event: () => undefined,
      }));
      await net.settle();
      await pending;
    }
    assert.equal(server.associationCount, 2);

    // The vanished peer neither receives nor sends anything from now on.
    net.filter = (_packet, from, to) => (from === VANISHED || to === VANISHED ? 'drop' : 'deliver');
    let closed = false;
    void listener.close().then(() => (closed = true));
    await time.advance(LISTENER_SHUTDOWN_TIMEOUT_MS - 1, () => net.settle());
    assert.deepEqual(events.get(ANSWERING), [{ type: 'shutdown-complete' }]);
    assert.equal(closed, false, 'still waiting for the vanished peer');

    await time.advance(1, () => net.settle());
    assert.equal(closed, true);
    assert.deepEqual(events.get(VANISHED), [
      { type: 'communication-lost', reason: 'local-abort', cause: 'listener closing' },
    ]);
    const toVanished = net.sent.filter((s) => s.from === SERVER && s.to === VANISHED).map((s) => s.packet);
    assert.equal(firstChunk(toVanished.at(-1)!), ChunkType.ABORT, 'the vanished peer was sent ABORT');
    assert.ok(toVanished.some((packet) => firstChunk(packet) === ChunkType.SHUTDOWN));
    assert.equal(server.associationCount, 0);
    await server.close();
  });
});
