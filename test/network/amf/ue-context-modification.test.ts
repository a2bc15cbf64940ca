import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AmfUe } from '../../../src/network/amf/context/amf-ue.ts';
import type { UeConnection } from '../../../src/network/amf/context/ue-connections.ts';
import {
  CONTEXT_MODIFICATION_GUARD_MS,
  createContextModification,
} from '../../../src/network/amf/n2/ue-context-modification.ts';
import type { Cause, UEAggregateMaximumBitRate } from '../../../src/network/ngap/generated/types.ts';
import type { SubscriptionData } from '../../../src/network/ports/subscription-data.ts';
import { ManualTime } from '../../helpers/manual-time.ts';

/**
 * UE Context Modification from the AMF (TS 38.413 8.3.4), its own rules over a recording NGAP: one
 * request per connection at a time, a later UE-AMBR sent after the answer or after the guard, nothing for
 * an unchanged UE-AMBR or a UE whose radio holds no context, and answers to nothing refused.
 */

const profile = (downlink: string, uplink: string) =>
  ({ ambrDownlink: downlink, ambrUplink: uplink }) as SubscriptionData['profile'];

function rig() {
  const time = new ManualTime();
  const sent: { amfUeNgapId: number; ambr: UEAggregateMaximumBitRate | undefined; key?: Uint8Array }[] = [];
  const warned: string[] = [];
  const released: Cause[] = [];
  /** What the transport answers to the next request. */
  const transport = { accepts: true };
  const modification = createContextModification({
    ngap: {
      modifyContext: (connection, { ueAmbr: ambr, securityKey }) => {
        assert.ok(ambr !== undefined || securityKey !== undefined, 'a request carries a change');
        if (!transport.accepts) return false;
        sent.push({
          amfUeNgapId: connection.amfUeNgapId,
          ambr,
          ...(securityKey === undefined ? {} : { key: securityKey.bytes }),
        });
        return true;
      },
      release: (_, cause) => void released.push(cause),
    },
    timers: time,
    peerLog: { warn: (kind: string) => void warned.push(kind) },
  });
  const connection = {
    amfUeNgapId: 7,
    ranUeNgapId: 3,
    radio: { id: 'gnb', name: 'gnb-1' },
    phase: 'active',
  } as unknown as UeConnection<AmfUe>;
  const ue = (contextSetUp: boolean): AmfUe =>
    ({
      cm: { name: 'connected', connection, contextSetUp },
      ueAmbr: { uEAggregateMaximumBitRateDL: 1e9, uEAggregateMaximumBitRateUL: 1e9 },
    }) as unknown as AmfUe;
  return { time, sent, warned, released, transport, modification, connection, ue };
}

const mbps = (downlink: number, uplink: number): UEAggregateMaximumBitRate => ({
  uEAggregateMaximumBitRateDL: downlink * 1e6,
  uEAggregateMaximumBitRateUL: uplink * 1e6,
});

describe('UE Context Modification (AMF)', () => {
  it('sends the new UE-AMBR; a change while one waits goes after the Response', () => {
    const r = rig();
    const ue = r.ue(true);
    r.modification.subscribedAmbr(ue, profile('500 Mbps', '200 Mbps'));
    r.modification.subscribedAmbr(ue, profile('300 Mbps', '100 Mbps'));
    assert.deepEqual(
      r.sent.map((s) => s.ambr),
      [mbps(500, 200)],
      'one request at a time per connection',
    );
    assert.equal(r.modification.endpoint.answered(r.connection, undefined), true);
    assert.deepEqual(
      r.sent.map((s) => s.ambr),
      [mbps(500, 200), mbps(300, 100)],
    );
    assert.equal(r.modification.endpoint.answered(r.connection, undefined), true);
    assert.equal(r.modification.outstanding(), 0);
    assert.equal(r.time.pending, 0, 'no guard left running');
  });

  it('a radio that never answers holds the next change back only until the guard', async () => {
    const r = rig();
    const ue = r.ue(true);
    r.modification.subscribedAmbr(ue, profile('500 Mbps', '200 Mbps'));
    r.modification.subscribedAmbr(ue, profile('300 Mbps', '100 Mbps'));
    await r.time.advance(CONTEXT_MODIFICATION_GUARD_MS - 1, async () => {});
    assert.equal(r.sent.length, 1);
    await r.time.advance(1, async () => {});
    assert.deepEqual(r.sent[1]?.ambr, mbps(300, 100));
    // The late answer to the first request is taken as the second's: the radio answers in order.
    assert.equal(r.modification.endpoint.answered(r.connection, undefined), true);
    assert.equal(r.modification.endpoint.answered(r.connection, undefined), false);
  });

  it('a Failure is logged and ends the request', () => {
    const r = rig();
    r.modification.subscribedAmbr(r.ue(true), profile('500 Mbps', '200 Mbps'));
    const cause = { choice: 'radioNetwork', value: 'unspecified' } as const;
    assert.equal(r.modification.endpoint.answered(r.connection, cause), true);
    assert.deepEqual(r.warned, ['ue_context_modification_failed']);
    assert.equal(r.modification.outstanding(), 0);
  });

  it('nothing for an unchanged UE-AMBR, an unreadable one, or a radio without the context', () => {
    const r = rig();
    r.modification.subscribedAmbr(r.ue(true), profile('1 Gbps', '1 Gbps'));
    r.modification.subscribedAmbr(r.ue(true), profile('fast', '1 Gbps'));
    const idle = r.ue(false);
    r.modification.subscribedAmbr(idle, profile('500 Mbps', '200 Mbps'));
    assert.deepEqual(r.sent, []);
    // Kept: the next context setup reads the profile again, and a later equal change sends nothing.
    assert.deepEqual(idle.ueAmbr, mbps(500, 200));
    assert.equal(r.modification.endpoint.answered(r.connection, undefined), false);
  });

  describe('a new KgNB after NAS re-keying (TS 33.501 6.9.4.4)', () => {
    const KGNB = Buffer.alloc(32, 0xa5);
    const STALE = { choice: 'radioNetwork', value: 'release-due-to-5gc-generated-reason' };

    it('goes as the Security Key; the NH chain starts over from it at NCC 0; a Response keeps the UE', () => {
      const r = rig();
      r.connection.accessKeys = { ncc: 3, key: Buffer.alloc(32, 1) };
      r.modification.securityKey(r.ue(true), KGNB);
      assert.deepEqual(
        r.sent.map((s) => s.key),
        [KGNB],
      );
      assert.deepEqual(r.connection.accessKeys, { ncc: 0, key: KGNB });
      assert.equal(r.modification.endpoint.answered(r.connection, undefined), true);
      assert.deepEqual(r.released, []);
      assert.equal(r.time.pending, 0);
    });

    it('waits behind an outstanding request and is merged with what else waits', () => {
      const r = rig();
      const ue = r.ue(true);
      r.modification.subscribedAmbr(ue, profile('500 Mbps', '200 Mbps'));
      r.modification.securityKey(ue, KGNB);
      r.modification.subscribedAmbr(ue, profile('300 Mbps', '100 Mbps'));
      assert.equal(r.sent.length, 1);
      assert.equal(r.modification.endpoint.answered(r.connection, undefined), true);
      assert.deepEqual(r.sent[1], { amfUeNgapId: 7, ambr: mbps(300, 100), key: KGNB });
    });

    it('a Failure, no answer, or a request that could not go: the connection is released', async () => {
      const refused = rig();
      refused.modification.securityKey(refused.ue(true), KGNB);
      const cause = { choice: 'radioNetwork', value: 'unspecified' } as const;
      assert.equal(refused.modification.endpoint.answered(refused.connection, cause), true);
      assert.deepEqual(refused.warned, ['ue_context_modification_failed']);
      assert.deepEqual(refused.released, [STALE]);

      const silent = rig();
      silent.modification.securityKey(silent.ue(true), KGNB);
      await silent.time.advance(CONTEXT_MODIFICATION_GUARD_MS - 1, async () => {});
      assert.deepEqual(silent.released, []);
      await silent.time.advance(1, async () => {});
      assert.deepEqual(silent.released, [STALE]);
      assert.equal(silent.modification.outstanding(), 0);

      const unsent = rig();
      unsent.transport.accepts = false;
      unsent.modification.securityKey(unsent.ue(true), KGNB);
      assert.deepEqual(unsent.released, [STALE]);
      assert.equal(unsent.modification.outstanding(), 0);
    });

    it('a UE-AMBR refused is only logged: the connection stays', () => {
      const r = rig();
      r.modification.subscribedAmbr(r.ue(true), profile('500 Mbps', '200 Mbps'));
      r.modification.endpoint.answered(r.connection, { choice: 'radioNetwork', value: 'unspecified' });
      assert.deepEqual(r.released, []);
    });
  });
});
