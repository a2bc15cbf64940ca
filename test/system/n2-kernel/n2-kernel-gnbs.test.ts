import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';

import {
  addressOf,
  guestResults,
  guestUnavailable,
  prepareGuest,
  startGuest,
  tapLink,
  type GuestResult,
} from '../../../scripts/qemu-sctp/qemu-guest.ts';
import type { N2Service } from '../../e2e/n2-service.ts';
import { startN2Service } from '../../e2e/n2-service.ts';
import { rawPeerInNamespaceUnavailable } from '../../helpers/netns.ts';

/**
 * The gNB simulator over the `kernel` transport (issue 14): three simulated gNBs in a qemu guest speak
 * NGAP through the Linux kernel's SCTP to the service on the host, whose AMF listens on our `raw` stack
 * on the tap. They complete NG Setup, the API lists them with the guest's address, and they are gone
 * once the guest shuts their associations down.
 */
const why = guestUnavailable(true) ?? rawPeerInNamespaceUnavailable();
const CONTROL_PORT = 7878;

interface Page<T> {
  items: T[];
  total_count: number;
}

describe(
  'simulated gNBs over kernel SCTP in a qemu guest against the service (raw, tap)',
  { skip: why ?? false, timeout: 240_000 },
  () => {
    const tap = tapLink(2);
    let service: N2Service | undefined;
    let result: GuestResult | undefined;
    let listed: { name: string; id: string; address: string }[] = [];
    let events: { message_type: string; direction: string }[] = [];

    before(async () => {
      await prepareGuest();
      const guest = await startGuest({
        entry: fileURLToPath(new URL('guest-gnbs.ts', import.meta.url)),
        args: {
          amf: addressOf(tap.host4),
          port: 38412,
          count: 3,
          firstGnbId: 0x40,
          controlPort: CONTROL_PORT,
        },
        tap,
        timeoutMs: 200_000,
        beforeBoot: async () => {
          service = await startN2Service({ raw: { address: addressOf(tap.host4) } });
        },
      });
      try {
        await guest.waitFor(/^PMN-STEP holding/);
        assert.ok(service);
        listed = (
          await service.get<Page<{ name: string; id: string; address: string }>>('/api/v1/ran/radios')
        ).items;
        await service.t.records.flush();
        events = (await service.get<Page<{ message_type: string; direction: string }>>('/api/v1/ran/events'))
          .items;
        // Tells the guest to shut its gNBs down.
        await new Promise<void>((resolve, reject) => {
          const socket = connect(CONTROL_PORT, addressOf(tap.guest4));
          socket.on('error', reject).on('close', () => resolve());
          socket.resume();
        });
      } finally {
        result = await guest.finished;
      }
    });

    after(async () => {
      await service?.close();
    });

    const step = (name: string): Record<string, unknown> => {
      const found = (guestResults(result?.lines ?? []) as { step: string }[]).find((s) => s.step === name);
      assert.ok(found, `the guest reported no ${name}:\n${result?.lines.join('\n')}`);
      return found;
    };

    it('three gNBs complete NG Setup over the guest kernel SCTP', () => {
      assert.equal(result?.exitCode, 0, result?.lines.join('\n'));
      assert.deepEqual(step('ng-setup').outcomes, ['accepted', 'accepted', 'accepted']);
    });

    it('the API lists each radio with its name, id and the guest address, and its NG Setup both ways', () => {
      assert.deepEqual(listed.map((radio) => [radio.name, radio.id]).sort(), [
        ['kernel-1', '001:01:000040'],
        ['kernel-2', '001:01:000041'],
        ['kernel-3', '001:01:000042'],
      ]);
      const guest = addressOf(tap.guest4);
      assert.ok(
        listed.every((radio) => radio.address.startsWith(`${guest}:`)),
        JSON.stringify(listed),
      );
      const count = (type: string, direction: string) =>
        events.filter((e) => e.message_type === type && e.direction === direction).length;
      assert.equal(count('NGSetupRequest', 'inbound'), 3);
      assert.equal(count('NGSetupResponse', 'outbound'), 3);
    });

    it('the radios are gone once the guest shuts its associations down', async () => {
      assert.deepEqual(step('shutdown').ends, [
        { reason: 'shutdown' },
        { reason: 'shutdown' },
        { reason: 'shutdown' },
      ]);
      assert.ok(service);
      const s = service;
      await s.until(
        async () => ((await s.get<Page<unknown>>('/api/v1/ran/radios')).total_count === 0 ? true : undefined),
        'the radios gone after the shutdown',
      );
    });
  },
);
