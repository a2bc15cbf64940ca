import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AmfUe } from '../../../src/network/amf/context/amf-ue.ts';
import type { UeConnection } from '../../../src/network/amf/context/ue-connections.ts';
import {
  createRadioCapabilityCheck,
  RADIO_CAPABILITY_CHECK_GUARD_MS,
} from '../../../src/network/amf/n2/radio-capability-check.ts';
import { ManualTime } from '../../helpers/manual-time.ts';

/**
 * The AMF's UE Radio Capability Check (n2/radio-capability-check.ts; TS 38.413 8.14.2) on manual time:
 * the answer decides, a silent radio counts as not supported after the guard, one check at a time per
 * connection, and nothing is left waiting.
 */

const nothing = (): Promise<void> => Promise.resolve();

function rig(options: { refuse?: boolean } = {}) {
  const time = new ManualTime();
  const sent: (Uint8Array | undefined)[] = [];
  const check = createRadioCapabilityCheck({
    ngap: {
      checkRadioCapability: (_connection, capability) => {
        sent.push(capability);
        return options.refuse !== true;
      },
    },
    timers: time,
  });
  const connection = { phase: 'active' } as UeConnection<AmfUe>;
  return { time, sent, check, connection };
}

describe('UE Radio Capability Check (AMF)', () => {
  it('the answer decides; an answer nobody waits for is refused', async () => {
    const { sent, check, connection } = rig();
    const asked = check.check(connection, Uint8Array.of(1, 2));
    assert.deepEqual(sent, [Uint8Array.of(1, 2)]);
    assert.equal(check.endpoint.answered(connection, 'supported'), true);
    assert.equal(await asked, true);
    assert.equal(check.endpoint.answered(connection, 'supported'), false, 'no check waits any more');
    const again = check.check(connection, undefined);
    assert.equal(check.endpoint.answered(connection, 'not-supported'), true);
    assert.equal(await again, false);
    // A value of a later release (the enumeration is extensible) says nothing this AMF knows.
    const later = check.check(connection, undefined);
    assert.equal(check.endpoint.answered(connection, 2), true);
    assert.equal(await later, false, 'an unknown IMS Voice Support Indicator: not supported');
    assert.equal(check.outstanding(), 0);
  });

  it('a silent radio: not supported after the guard; a second check joins the first', async () => {
    const { time, sent, check, connection } = rig();
    const first = check.check(connection, undefined);
    const second = check.check(connection, undefined);
    assert.equal(sent.length, 1, 'one request at a time');
    await time.advance(RADIO_CAPABILITY_CHECK_GUARD_MS - 1, nothing);
    assert.equal(check.outstanding(), 1);
    await time.advance(1, nothing);
    assert.deepEqual(await Promise.all([first, second]), [false, false]);
    assert.equal(check.outstanding(), 0);
    assert.equal(time.pending, 0);
    assert.equal(check.endpoint.answered(connection, 'supported'), false, 'too late');
  });

  it('not sent (transport refused, connection releasing): not supported at once', async () => {
    const refused = rig({ refuse: true });
    assert.equal(await refused.check.check(refused.connection, undefined), false);
    assert.equal(refused.check.outstanding(), 0);
    const releasing = rig();
    releasing.connection.phase = 'releasing';
    assert.equal(await releasing.check.check(releasing.connection, undefined), false);
    assert.deepEqual(releasing.sent, []);
  });
});
