import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeN2Network } from '../../helpers/fake-n2-transport.ts';
import type {
  AssociationEvent,
  AssociationHandler,
  InboundMessage,
  N2Association,
  N2Transport,
} from '../../../src/network/transport/n2-transport.ts';
import { NGAP_PORT, NGAP_PPID } from '../../../src/network/transport/n2-transport.ts';

const text = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array) => new TextDecoder().decode(b);

/** Records what one association's handler receives. */
function recorder(): AssociationHandler & { messages: InboundMessage[]; events: AssociationEvent[] } {
  const messages: InboundMessage[] = [];
  const events: AssociationEvent[] = [];
  return { messages, events, message: (m) => messages.push(m), event: (e) => events.push(e) };
}

/**
 * A toy protocol written only against `N2Transport`, in the shape NGAP takes: a setup request on
 * stream 0 answered on stream 0, then per-UE messages on streams >= 1, each echoed back; an association
 * that ends drops the peer from the table. It shows that a protocol is driven through the fake.
 */
async function startToyAmf(transport: N2Transport) {
  const peers = new Map<number, { name: string | undefined; log: string[] }>();
  const listener = await transport.listen({ addresses: ['10.0.0.1'], port: NGAP_PORT }, (association) => {
    const peer = { name: undefined as string | undefined, log: [] as string[] };
    peers.set(association.id, peer);
    return {
      message(m) {
        const body = str(m.payload);
        if (m.ppid !== NGAP_PPID) return association.abort('wrong PPID');
        if (m.streamId === 0 && body.startsWith('setup:')) {
          peer.name = body.slice(6);
          association.send(0, NGAP_PPID, text(`accepted:${peer.name}`));
        } else {
          peer.log.push(body);
          association.send(m.streamId, NGAP_PPID, text(`ack:${body}`));
        }
      },
      event(e) {
        if (e.type === 'communication-lost' || e.type === 'shutdown-complete') peers.delete(association.id);
      },
    };
  });
  return { listener, peers };
}

async function connect(transport: N2Transport, handler = recorder(), streams?: number) {
  const association = await transport.connect(
    {
      remote: [{ address: '10.0.0.1', port: NGAP_PORT }],
      ...(streams === undefined ? {} : { outboundStreams: streams, inboundStreams: streams }),
    },
    () => handler,
  );
  return { association, handler };
}

describe('fake N2 transport', () => {
  it('drives a setup and per-stream exchange through a protocol written against the interface', async () => {
    const network = new FakeN2Network();
    const amf = await startToyAmf(network.transport());
    const { association, handler } = await connect(network.transport());
    association.send(0, NGAP_PPID, text('setup:gnb-1'));
    for (let i = 0; i < 5; i++) association.send(1 + (i % 2), NGAP_PPID, text(`ue-${i}`));
    await network.settled();
    assert.deepEqual(
      handler.messages.map((m) => [m.streamId, m.ppid, str(m.payload)]),
      [
        [0, 60, 'accepted:gnb-1'],
        [1, 60, 'ack:ue-0'],
        [2, 60, 'ack:ue-1'],
        [1, 60, 'ack:ue-2'],
        [2, 60, 'ack:ue-3'],
        [1, 60, 'ack:ue-4'],
      ],
    );
    assert.deepEqual(
      [...amf.peers.values()],
      [{ name: 'gnb-1', log: ['ue-0', 'ue-1', 'ue-2', 'ue-3', 'ue-4'] }],
    );

    association.shutdown();
    await network.settled();
    assert.deepEqual(handler.events, [{ type: 'shutdown-complete' }]);
    assert.equal(amf.peers.size, 0, 'the protocol saw its peer leave');
    await amf.listener.close();
  });

  it('gives both sides the up facts with stream counts negotiated as min(OS, MIS)', async () => {
    const network = new FakeN2Network();
    const server = network.transport();
    let serverUp: unknown;
    await server.listen(
      { addresses: ['10.0.0.1'], port: NGAP_PORT, inboundStreams: 4, outboundStreams: 8 },
      (_association, up) => {
        serverUp = up;
        return recorder();
      },
    );
    let clientStreams: unknown;
    await network
      .transport()
      .connect(
        { remote: [{ address: '10.0.0.1', port: NGAP_PORT }], outboundStreams: 10, inboundStreams: 2 },
        (_association, up) => {
          clientStreams = up.streams;
          return recorder();
        },
      );
    assert.deepEqual(clientStreams, { outbound: 4, inbound: 2 });
    assert.deepEqual((serverUp as { streams: unknown }).streams, { inbound: 4, outbound: 2 });
  });

  it('refuses sends on a stream beyond the negotiated count, and after shutdown', async () => {
    const network = new FakeN2Network();
    await startToyAmf(network.transport());
    const { association } = await connect(network.transport(), recorder(), 3);
    assert.deepEqual(association.send(3, NGAP_PPID, text('x')), { ok: false, error: 'invalid-stream' });
    assert.deepEqual(association.send(2, NGAP_PPID, text('x')), { ok: true });
    association.shutdown();
    assert.deepEqual(association.send(0, NGAP_PPID, text('x')), { ok: false, error: 'closed' });
    await network.settled();
  });

  it('applies back-pressure: a held peer fills the bounded queue, then drain reopens it', async () => {
    const network = new FakeN2Network({ maxQueuedBytes: 100 });
    const received = recorder();
    await network.transport().listen({ addresses: ['10.0.0.1'], port: NGAP_PORT }, () => received);
    const client = network.transport();
    const { association, handler } = await connect(client);
    client.association(association.id)?.hold();
    const results = Array.from({ length: 12 }, (_, i) =>
      association.send(1, NGAP_PPID, new Uint8Array(10).fill(i)),
    );
    assert.equal(results.filter((r) => r.ok).length, 10);
    assert.deepEqual(results[10], { ok: false, error: 'queue-full' });
    client.association(association.id)?.release();
    await network.settled();
    assert.deepEqual(handler.events, [{ type: 'drain' }]);
    assert.deepEqual(
      received.messages.map((m) => m.payload[0]),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      'every accepted message was delivered, once, in order',
    );
    assert.deepEqual(association.send(1, NGAP_PPID, new Uint8Array(10)), { ok: true });
  });

  it('reports abort on both sides with the cause, and loss and restart when a test causes them', async () => {
    const network = new FakeN2Network();
    const server = network.transport();
    const serverHandlers: ReturnType<typeof recorder>[] = [];
    const serverAssociations: N2Association[] = [];
    await server.listen({ addresses: ['10.0.0.1'], port: NGAP_PORT }, (association) => {
      serverAssociations.push(association);
      const handler = recorder();
      serverHandlers.push(handler);
      return handler;
    });
    const first = await connect(network.transport());
    first.association.abort('going away');
    await network.settled();
    assert.deepEqual(first.handler.events, [
      { type: 'communication-lost', reason: 'local-abort', cause: 'going away' },
    ]);
    assert.deepEqual(serverHandlers[0]?.events, [
      { type: 'communication-lost', reason: 'peer-abort', cause: 'going away' },
    ]);

    const second = await connect(network.transport());
    const serverSide = server.association(serverAssociations[1]?.id ?? -1);
    assert.ok(serverSide);
    serverSide.simulatePeerRestart();
    await network.settled();
    assert.equal(serverHandlers[1]?.events[0]?.type, 'restart');
    serverSide.simulateLoss();
    await network.settled();
    assert.deepEqual(second.handler.events, [
      { type: 'communication-lost', reason: 'retransmissions-exceeded' },
    ]);
    assert.equal(second.association.state, 'closed');
  });

  it('closing a listener shuts its associations down gracefully; connecting to nothing is refused', async () => {
    const network = new FakeN2Network();
    const amf = await startToyAmf(network.transport());
    const a = await connect(network.transport());
    const b = await connect(network.transport());
    await amf.listener.close();
    assert.deepEqual(a.handler.events, [{ type: 'shutdown-complete' }]);
    assert.deepEqual(b.handler.events, [{ type: 'shutdown-complete' }]);
    await assert.rejects(connect(network.transport()), /no listener/);
  });
});
