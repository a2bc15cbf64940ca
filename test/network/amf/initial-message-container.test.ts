import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { withCipheredContainer } from '../../../src/network/nas/initial-message-container.ts';
import { REGISTRATION_TYPE, type NasMessageOf } from '../../../src/network/nas/index.ts';
import { register, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import {
  createAmfHarness,
  initialUeMessage,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
} from './test-ue.ts';

/**
 * The AMF opens the ciphered NAS message container of a verified initial Registration Request (TS
 * 24.501 4.4.6, 5.5.1.3.2) and takes the whole message in it as the request: its PDU session status
 * IE is answered in Registration Accept (5.5.1.3.4). A container that does not open leaves the
 * cleartext IEs. The device side is the test UE (test-ue.ts), not the simulator.
 */

const emitted = emittedPdus();
after(() => emitted.check());

/** A registered, idle test UE and the mobility update it sends, with `container` for its container. */
async function idleUe() {
  const h = await createAmfHarness();
  const radio = await h.radio();
  const ue = new TestUe();
  const { ids, guti } = await register(h, radio, ue);
  await step(h, radio, ue, ueContextReleaseRequest(ids));
  await step(h, radio, ue, ueContextReleaseComplete(ids));
  const security = ue.security;
  assert.ok(security !== undefined && guti !== undefined);
  const update: NasMessageOf<'registrationRequest'> = ue.registrationRequest({
    registrationType: { followOnRequestPending: false, value: REGISTRATION_TYPE.mobilityUpdating },
    ngKsi: security.ngKsi,
    mobileIdentity: guti,
    pduSessionStatus: [],
  });
  /** The update as sent: cleartext IEs and the container ciphered at the COUNT it goes with. */
  const sent = withCipheredContainer(security, security.nextSendCount, update);
  return { h, radio, ue, sent };
}

describe('AMF: the ciphered NAS message container of a Registration Request (TS 24.501 4.4.6)', () => {
  it('deciphered after the integrity check: the PDU session status inside is answered in Registration Accept', async () => {
    const { h, radio, ue, sent } = await idleUe();
    assert.equal(sent.pduSessionStatus, undefined, 'not in the cleartext message');
    assert.ok(sent.nasMessageContainer !== undefined);
    const answer = await step(h, radio, ue, initialUeMessage(2, ue.protect(sent, 1)));
    const accept = answer.nas[0];
    assert.ok(accept?.messageType === 'registrationAccept');
    // The AMF holds no session of the UE: the network's status is empty, and present because the
    // UE's was (inside the container).
    assert.deepEqual(accept.pduSessionStatus, []);
    assert.equal(h.subscriberLogs.at(-2)?.event, 'Registration Request');
    emitted.add(radio.received);
    await h.close();
  });

  it('a container that does not decipher into a Registration Request: the cleartext IEs are used', async () => {
    const { h, radio, ue, sent } = await idleUe();
    const container = sent.nasMessageContainer;
    assert.ok(container !== undefined);
    const garbled = { ...sent, nasMessageContainer: container.map((octet) => octet ^ 0xff) };
    const answer = await step(h, radio, ue, initialUeMessage(2, ue.protect(garbled, 1)));
    const accept = answer.nas[0];
    assert.ok(accept?.messageType === 'registrationAccept');
    assert.equal(accept.pduSessionStatus, undefined);
    emitted.add(radio.received);
    await h.close();
  });
});
