import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { concealMsin, generateHomeNetworkKey, PROTECTION_SCHEME } from '../../../src/crypto/suci.ts';
import { encodeNasMessage, REGISTRATION_TYPE } from '../../../src/network/nas/index.ts';
import { namesOf, register, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import {
  amfUeNgapIdOf,
  createAmfHarness,
  IMSI,
  initialContextSetupResponse,
  initialUeMessage,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
  uplinkNasTransport,
} from './test-ue.ts';

const emitted = emittedPdus();
after(() => emitted.check());

describe('Mobility and periodic registration update (TS 24.501 5.5.1.3)', () => {
  for (const [type, value] of [
    ['periodic', REGISTRATION_TYPE.periodicUpdating],
    ['mobility', REGISTRATION_TYPE.mobilityUpdating],
  ] as const) {
    it(`a ${type} update protected under the stored context: accepted without authentication, new 5G-GUTI, T3512, released`, async () => {
      const h = await createAmfHarness();
      const radio = await h.radio();
      const ue = new TestUe();
      const { ids, guti } = await register(h, radio, ue);
      await step(h, radio, ue, ueContextReleaseRequest(ids));
      await step(h, radio, ue, ueContextReleaseComplete(ids));
      const logged = h.subscriberLogs.length;

      // An initial NAS message is integrity protected, not ciphered (TS 24.501 4.4.6).
      const request = ue.registrationRequest({
        registrationType: { followOnRequestPending: false, value },
        ngKsi: ue.security!.ngKsi,
        mobileIdentity: guti,
      });
      const answer = await step(h, radio, ue, initialUeMessage(2, ue.protect(request, 1)));
      assert.deepEqual(namesOf(answer.pdus), ['InitialContextSetup']);
      assert.deepEqual(
        answer.nas.map((m) => m.messageType),
        ['registrationAccept'],
        'no Authentication Request: the stored context vouches for the UE',
      );
      const accept = answer.nas[0]!;
      assert.ok(accept.messageType === 'registrationAccept' && accept.fiveGGuti?.type === '5g-guti');
      assert.notEqual(accept.fiveGGuti.tmsi, guti.tmsi, 'a new 5G-GUTI at every registration');
      assert.deepEqual(accept.t3512Value, { unit: 0, value: 5 }, 'T3512 54 min -> 5 x 10 min');

      const ids2 = { amf: amfUeNgapIdOf(answer.pdus[0]!)!, ran: 2 };
      await step(h, radio, ue, initialContextSetupResponse(ids2));
      const done = await step(
        h,
        radio,
        ue,
        uplinkNasTransport(ids2, ue.protect({ messageType: 'registrationComplete' })),
      );
      assert.deepEqual(namesOf(done.pdus), ['UEContextRelease'], 'no follow-on request: released');
      await step(h, radio, ue, ueContextReleaseComplete(ids2));
      assert.equal(h.state.subscriber(IMSI).registered, true);
      assert.deepEqual(
        h.subscriberLogs.slice(logged).map((l) => `${l.direction} ${l.event}`),
        ['inbound Registration Request', 'outbound Registration Accept', 'inbound Registration Complete'],
      );
      const tmsiHex = accept.fiveGGuti.tmsi.toString(16).padStart(8, '0');
      assert.match(String(h.subscriberLogs.at(-1)?.details?.['guti']), new RegExp(`${tmsiHex}$`));
      // Idle again: only the mobile reachable timer runs.
      assert.deepEqual(h.amf.counts(), { ues: 1, connections: 0 });
      assert.equal(h.clock.pendingTimers(), 1);
      emitted.add(radio.received);
      await h.close();
    });
  }

  it('an old 5G-GUTI after a newer one was assigned is no longer known: Identity Request', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids, guti } = await register(h, radio, ue);
    await step(h, radio, ue, ueContextReleaseRequest(ids));
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    const stale = { ...guti, tmsi: (guti.tmsi + 1) >>> 0 };
    const request = ue.registrationRequest({
      registrationType: { followOnRequestPending: false, value: REGISTRATION_TYPE.periodicUpdating },
      ngKsi: ue.security!.ngKsi,
      mobileIdentity: stale,
    });
    const answer = await step(h, radio, ue, initialUeMessage(2, encodeNasMessage(request)));
    assert.deepEqual(
      answer.nas.map((m) => m.messageType),
      ['identityRequest'],
    );
    emitted.add(radio.received);
    await h.close();
  });
});

describe('Concealed SUCIs through the AMF (TS 33.501 6.12.2, Annex C)', () => {
  for (const [name, scheme, profile] of [
    ['Profile A', 'A', PROTECTION_SCHEME.profileA],
    ['Profile B', 'B', PROTECTION_SCHEME.profileB],
  ] as const) {
    it(`${name}: de-concealed with the operator's home network key, registered; another key or an unknown key id -> #7, logged without IMSI`, async () => {
      const { privateKey, key } = generateHomeNetworkKey(profile);
      const h = await createAmfHarness(
        {},
        { homeNetworkKeys: [{ id: 3, scheme, privateKey, publicKey: key.publicKey }] },
      );
      const radio = await h.radio();
      const ue = new TestUe();
      const suci = (publicKey: Uint8Array, keyId: number) => {
        const output = concealMsin(profile, IMSI.slice(5), publicKey);
        const keyLength = scheme === 'A' ? 32 : 33;
        return ue.registrationRequest({
          mobileIdentity: {
            type: 'suci',
            supiFormat: 'imsi',
            mcc: '001',
            mnc: '01',
            routingIndicator: '0',
            protectionScheme: profile,
            homeNetworkPublicKeyId: keyId,
            schemeOutput: {
              scheme: scheme === 'A' ? 'profile-a' : 'profile-b',
              eccEphemeralPublicKey: output.subarray(0, keyLength),
              ciphertext: output.subarray(keyLength, output.length - 8),
              macTag: output.subarray(output.length - 8),
            },
          },
        });
      };
      await register(h, radio, ue, suci(key.publicKey, 3));
      assert.equal(h.state.subscriber(IMSI).registered, true);
      const first = h.subscriberLogs[0]?.details?.['suci'];
      assert.ok(typeof first === 'string' && first.startsWith(`suci-0-001-01-0-${profile}-3-`));

      // A SUCI the SIDF cannot de-conceal: concealed under another key (bad MAC), or under a key id the
      // operator does not have. Rejected with a cause the UE acts on (5.5.1.2.5), and logged with no
      // IMSI, as the SUCI shows none in clear (network.md section 4).
      const other = generateHomeNetworkKey(profile).key.publicKey;
      for (const [ran, keyId] of [
        [5, 3],
        [6, 4],
      ] as const) {
        const stranger = new TestUe({ ranUeNgapId: ran });
        const logged = h.subscriberLogs.length;
        const refused = await step(
          h,
          radio,
          stranger,
          initialUeMessage(ran, encodeNasMessage(suci(other, keyId))),
        );
        assert.deepEqual(
          refused.nas.map((m) => m.messageType === 'registrationReject' && m.fiveGmmCause),
          [7],
        );
        const rows = h.subscriberLogs.slice(logged);
        assert.deepEqual(
          rows.map((l) => [l.imsi, l.level, l.event, l.details?.['cause']]),
          [
            ['', 'info', 'Registration Request', undefined],
            ['', 'warn', 'Registration Reject', '5GS services not allowed (7)'],
          ],
        );
        assert.ok(String(rows[1]?.details?.['suci']).startsWith(`suci-0-001-01-0-${profile}-${keyId}-`));
      }
      emitted.add(radio.received);
      await h.close();
    });
  }
});
