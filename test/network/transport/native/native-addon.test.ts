import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import {
  kernelSctpSupport,
  loadNativeAddon,
  rawSocketSupport,
  type NativeAddon,
  type RawSocket,
} from '../../../../src/network/transport/native/native-addon.ts';
import { crc32c } from '../../../../src/network/transport/sctp/crc32c.ts';
import { until as waitUntil } from '../../../helpers/until.ts';

function addon(): NativeAddon {
  const load = loadNativeAddon();
  if (!load.ok) throw load.error;
  return load.addon;
}

const raw4 = rawSocketSupport(addon(), 4);
const raw6 = rawSocketSupport(addon(), 6);
const needsRaw = raw4.available ? false : `raw sockets unavailable (${raw4.available ? '' : raw4.code})`;
const needsRaw6 = raw6.available ? false : 'raw IPv6 sockets unavailable';

/** Receives datagrams on a raw socket until one carries `marker` (other tests may send SCTP too). */
function receiver(family: 4 | 6, bindTo?: string) {
  const got: { packet: Buffer; source: string; destination: string }[] = [];
  const errors: Error[] = [];
  const socket = new (addon().RawSocket)(family, {
    onPacket: (packet, source, destination) => got.push({ packet, source, destination }),
    onError: (error) => errors.push(error),
  });
  if (bindTo !== undefined) socket.bind(bindTo);
  return { socket, got, errors };
}

/** Waits for the addon's thread (20 s of wall time: a loaded CI machine may delay it for seconds). */
const until = (check: () => boolean) => waitUntil("the addon thread's work", check, () => '', { everyMs: 2 });

function marked(tag: string): Buffer {
  return Buffer.from(`pmn-native-test:${tag}:${process.pid}`);
}

describe('native addon', () => {
  it('loads, and a missing build is an error value', () => {
    assert.equal(typeof addon().RawSocket, 'function');
    assert.equal(typeof addon().SctpSocket, 'function');
    const missing = loadNativeAddon('/nonexistent/pmn_native.node');
    assert.equal(missing.ok, false);
    assert.match(missing.ok ? '' : missing.error.message, /npm ci/);
  });

  it('computes the CRC32c as crc32c.ts does: RFC 3720 B.4 vectors, any range, continued, and bad arguments refused', () => {
    const { crc32c: native } = addon();
    // RFC 3720 B.4 (the same function as SCTP's, RFC 9260 Appendix A): 32 zeros, 32 ones, 0..31, 31..0.
    assert.equal(native(new Uint8Array(32), 0, 32, 0), 0x8a9136aa);
    assert.equal(native(new Uint8Array(32).fill(0xff), 0, 32, 0), 0x62a8ab43);
    assert.equal(
      native(
        Uint8Array.from({ length: 32 }, (_, i) => i),
        0,
        32,
        0,
      ),
      0x46dd794e,
    );
    assert.equal(
      native(
        Uint8Array.from({ length: 32 }, (_, i) => 31 - i),
        0,
        32,
        0,
      ),
      0x113fdb5c,
    );
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0);
    const bytes = Uint8Array.from({ length: 2000 }, () => next() & 0xff);
    for (let k = 0; k < 300; k++) {
      const start = next() % 2000;
      const end = start + (next() % (2001 - start));
      const split = start + Math.floor((end - start) / 3);
      const whole = crc32c(bytes, start, end, 0);
      assert.equal(native(bytes, start, end, 0), whole);
      assert.equal(native(bytes, split, end, native(bytes, start, split, 0)), whole);
    }
    // A subarray: the native side reads from the view's own offset.
    assert.equal(native(bytes.subarray(7, 1007), 0, 1000, 0), crc32c(bytes, 7, 1007, 0));
    for (const bad of [
      () => native(bytes, 10, 5, 0),
      () => native(bytes, 0, 2001, 0),
      () => native(bytes, -1, 5, 0),
      () => native(bytes, 0, 5, 2 ** 32),
      () => native([1, 2, 3] as unknown as Uint8Array, 0, 3, 0),
    ]) {
      assert.throws(bad, TypeError);
    }
  });

  it('reports whether the kernel has SCTP, as /proc/net/protocols does', () => {
    const support = kernelSctpSupport(addon());
    // Probing may load the sctp module, so read the kernel's protocol list afterwards.
    const listed = /^SCTP\b/m.test(readFileSync('/proc/net/protocols', 'utf8'));
    if (support.available) assert.ok(listed);
    else {
      assert.equal(support.code, 'EPROTONOSUPPORT');
      assert.equal(listed, false);
      assert.throws(
        () =>
          new (addon().SctpSocket)(6, {
            onMessage: () => undefined,
            onNotification: () => undefined,
            onWritable: () => undefined,
            onError: () => undefined,
          }),
        { code: 'EPROTONOSUPPORT', syscall: 'socket' },
      );
    }
  });

  it(
    'refuses bad arguments with TypeErrors and a closed socket with ERR_SOCKET_CLOSED',
    { skip: needsRaw },
    () => {
      const { socket } = receiver(4);
      assert.throws(() => socket.send('x' as unknown as Uint8Array, '127.0.0.1'), TypeError);
      assert.throws(() => socket.send(new Uint8Array(1), 'not-an-address'), TypeError);
      assert.throws(() => socket.send(new Uint8Array(1), '::1'), /family/);
      assert.throws(() => socket.bind('::1'), /family/);
      assert.throws(
        () => new (addon().RawSocket)(5 as 4, { onPacket: () => undefined, onError: () => undefined }),
        TypeError,
      );
      assert.throws(
        () => new (addon().RawSocket)(4, { onPacket: () => undefined } as never),
        /handlers.onError must be a function/,
      );
      socket.close();
      socket.close();
      assert.throws(() => socket.send(new Uint8Array(1), '127.0.0.1'), { code: 'ERR_SOCKET_CLOSED' });
    },
  );

  it(
    'sends and receives IPv4 datagrams without the IP header, with both addresses',
    { skip: needsRaw },
    async () => {
      const all = receiver(4);
      const bound = receiver(4, '127.0.0.2');
      const sender: RawSocket = receiver(4).socket;
      try {
        assert.equal(sender.send(marked('to-3'), '127.0.0.3', '127.0.0.9'), undefined);
        assert.equal(sender.send(marked('to-2'), '127.0.0.2'), undefined);
        await until(() => all.got.some((g) => g.packet.equals(marked('to-2'))));
        const toThree = all.got.find((g) => g.packet.equals(marked('to-3')));
        assert.deepEqual(toThree && { source: toThree.source, destination: toThree.destination }, {
          source: '127.0.0.9',
          destination: '127.0.0.3',
        });
        await until(() => bound.got.some((g) => g.packet.equals(marked('to-2'))));
        // bind() filters on the destination: the datagram to 127.0.0.3 never reached it.
        assert.equal(
          bound.got.some((g) => g.packet.equals(marked('to-3'))),
          false,
        );
        assert.deepEqual(all.errors, []);
      } finally {
        for (const socket of [all.socket, bound.socket, sender]) socket.close();
      }
    },
  );

  it('sends and receives IPv6 datagrams with both addresses', { skip: needsRaw6 }, async () => {
    const { socket, got, errors } = receiver(6);
    try {
      assert.equal(socket.send(marked('v6'), '::1', '::1'), undefined);
      await until(() => got.some((g) => g.packet.equals(marked('v6'))));
      const packet = got.find((g) => g.packet.equals(marked('v6')));
      assert.deepEqual(packet && [packet.source, packet.destination], ['::1', '::1']);
      assert.deepEqual(errors, []);
    } finally {
      socket.close();
    }
  });

  it(
    'returns the errno code of a datagram the kernel refuses instead of throwing',
    { skip: needsRaw },
    () => {
      const { socket } = receiver(4);
      try {
        // 65,536 bytes of payload do not fit one IPv4 datagram.
        assert.equal(socket.send(new Uint8Array(65536), '127.0.0.1'), 'EMSGSIZE');
      } finally {
        socket.close();
      }
    },
  );

  it(
    'sendBatch: each packet with its own destination and source, one refused packet skipped and reported',
    { skip: needsRaw },
    async () => {
      const all = receiver(4);
      const sender: RawSocket = receiver(4).socket;
      try {
        const result = sender.sendBatch(
          [marked('batch-1'), new Uint8Array(65536), marked('batch-2')],
          ['127.0.0.3', '127.0.0.1', '127.0.0.2'],
          ['127.0.0.9', undefined, undefined],
        );
        // The 65,536-byte payload does not fit an IPv4 datagram; the kernel took the others.
        assert.equal(result, 'EMSGSIZE');
        await until(() => all.got.some((g) => g.packet.equals(marked('batch-2'))));
        const seen = all.got
          .filter((g) => g.packet.equals(marked('batch-1')) || g.packet.equals(marked('batch-2')))
          .map((g) => [g.packet.toString(), g.source, g.destination]);
        assert.deepEqual(seen, [
          [marked('batch-1').toString(), '127.0.0.9', '127.0.0.3'],
          [marked('batch-2').toString(), '127.0.0.1', '127.0.0.2'],
        ]);
        assert.throws(() => sender.sendBatch([marked('x')], [], []), /same length/);
        assert.throws(() => sender.sendBatch('x' as never, [], []), /packets must be an array/);
      } finally {
        all.socket.close();
        sender.close();
      }
    },
  );
});

describe('native UDP sockets (the udp link)', () => {
  function udpReceiver(family: 4 | 6, address: string) {
    const got: { packet: Buffer; address: string; port: number }[] = [];
    const socket = new (addon().UdpSocket)(family, {
      onPacket: (packet, from, port) => got.push({ packet, address: from, port }),
      onError: () => undefined,
    });
    return { socket, got, port: socket.bind(address, 0) };
  }

  it('binds an ephemeral port, sends a batch in order with the source port, skips and reports a refused datagram', async () => {
    const a = udpReceiver(4, '127.0.0.1');
    const b = udpReceiver(4, '127.0.0.1');
    try {
      assert.ok(a.port > 0 && b.port > 0 && a.port !== b.port);
      const packets = [Buffer.from('one'), new Uint8Array(70_000), Buffer.from('two'), Buffer.from('three')];
      // 70,000 bytes do not fit a UDP datagram: EMSGSIZE for it, the others still go.
      assert.equal(b.socket.send(packets, Array(4).fill('127.0.0.1'), Array(4).fill(a.port)), 'EMSGSIZE');
      await until(() => a.got.length === 3);
      assert.deepEqual(
        a.got.map((g) => [g.packet.toString(), g.address, g.port]),
        ['one', 'two', 'three'].map((text) => [text, '127.0.0.1', b.port]),
      );
    } finally {
      a.socket.close();
      b.socket.close();
    }
  });

  it('hands the datagrams of one readable event over in one callback scope: promises run after the batch', async () => {
    const a = udpReceiver(4, '127.0.0.1');
    const order: string[] = [];
    const b = new (addon().UdpSocket)(4, {
      onPacket: (packet) => {
        order.push(packet.toString());
        void Promise.resolve().then(() => order.push(`then ${packet.toString()}`));
      },
      onError: () => undefined,
    });
    const port = b.bind('127.0.0.1', 0);
    try {
      // Loopback queues all three on b before the event loop next polls it.
      a.socket.send([Buffer.from('1'), Buffer.from('2'), Buffer.from('3')], Array(3).fill('127.0.0.1'), [
        port,
        port,
        port,
      ]);
      await until(() => order.length === 6);
      assert.deepEqual(order, ['1', '2', '3', 'then 1', 'then 2', 'then 3']);
    } finally {
      a.socket.close();
      b.close();
    }
  });

  it('address families are checked; bad arguments are TypeErrors; a closed socket refuses', () => {
    const v6 = new (addon().UdpSocket)(6, { onPacket: () => undefined, onError: () => undefined });
    const v4 = new (addon().UdpSocket)(4, { onPacket: () => undefined, onError: () => undefined });
    try {
      assert.ok(v6.bind('::1', 0) > 0);
      assert.throws(() => v6.send([new Uint8Array(1)], ['127.0.0.1'], [9]), /family/);
      assert.throws(() => v4.bind('::1', 0), /family/);
      assert.throws(() => v4.send([new Uint8Array(1)], ['127.0.0.1'], [0]), /port must be an integer from 1/);
      assert.throws(() => v4.send([new Uint8Array(1)], ['127.0.0.1'], []), /same length/);
      assert.throws(() => v4.send(['x' as never], ['127.0.0.1'], [9]), /packet must be a Uint8Array/);
      assert.throws(
        () => new (addon().UdpSocket)(4, { onPacket: () => undefined } as never),
        /handlers.onError must be a function/,
      );
    } finally {
      v6.close();
      v4.close();
    }
    assert.throws(() => v4.send([], [], []), { code: 'ERR_SOCKET_CLOSED' });
  });
});
