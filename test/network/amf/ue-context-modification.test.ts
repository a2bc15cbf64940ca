import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AmfUe } from '../../../src/network/amf/context/amf-ue.ts';
import type { UeConnection } from '../../../src/network/amf/context/ue-connections.ts';
import {
  CONTEXT_MODIFICATION_GUARD_MS,
  createContextModification,
} from '../../../src/network/amf/n2/ue-context-modification.ts';
import type { UEAggregateMaximumBitRate } from '../../../src/network/ngap/generated/types.ts';
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
  const sent: { amfUeNgapId: number; ambr: UEAggregateMaximumBitRate }[] = [];
  const warned: string[] = [];
  const modification = createContextModification({
    ngap: {
      modifyContext: (connection, { ueAmbr: ambr }) => {
        assert.ok(ambr !== undefined, 'a UE-AMBR change carries the UE-AMBR');
        sent.push({ amfUeNgapId: connection.amfUeNgapId, ambr });
        return true;
      },
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
  return { time, sent, warned, modification, connection, ue };
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
});
