import assert from 'node:assert/strict';
import { encodeNasMessage, type NasMessage, type NasMessageOf } from '../../../src/network/nas/index.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import type { TestRadio } from './n2-harness.ts';
import type { TestUe } from './test-ue.ts';
import {
  amfUeNgapIdOf,
  initialContextSetupResponse,
  initialUeMessage,
  nasPduOf,
  uplinkNasTransport,
  type AmfHarness,
} from './test-ue.ts';

export type Ids = { amf: number; ran: number };

/** What the steps use of a radio: sending, and what it received (the harness's or the fuzz's radios). */
export type StepRadio = Pick<TestRadio, 'send' | 'received'>;

/** Lets the AMF's port reads (promises) and the fake transport run to quiet. */
export async function settle(h: AmfHarness): Promise<void> {
  await h.settled();
  // Promises inside the AMF (ports) settle over several turns.
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  await h.settled();
}

/** Sends `send` from the radio; returns the PDUs the AMF answered with and the NAS inside, opened by `ue`. */
export async function step(
  h: AmfHarness,
  radio: StepRadio,
  ue: TestUe,
  send: NGAPPDU,
): Promise<{ pdus: NGAPPDU[]; nas: NasMessage[] }> {
  const from = radio.received.length;
  radio.send(send, 1);
  await settle(h);
  return answered(radio, ue, from);
}

/** What the AMF sent since `from`, and the NAS messages inside, opened by `ue`. */
export function answered(radio: StepRadio, ue: TestUe, from: number): { pdus: NGAPPDU[]; nas: NasMessage[] } {
  const pdus = radio.received.slice(from).map((r) => r.pdu);
  const nas = pdus
    .map(nasPduOf)
    .filter((p): p is Uint8Array => p !== undefined)
    .map((p) => ue.open(p));
  return { pdus, nas };
}

export const namesOf = (pdus: NGAPPDU[]) => pdus.map((p) => p.choice === 'initiatingMessage' && p.value.name);

/** Initial registration to the Registration Accept; returns the connection's ids. */
export async function registerUntilAccept(
  h: AmfHarness,
  radio: StepRadio,
  ue: TestUe,
  request = ue.registrationRequest(),
) {
  const ran = ue.options.ranUeNgapId;
  const first = await step(h, radio, ue, initialUeMessage(ran, encodeNasMessage(request)));
  assert.deepEqual(
    first.nas.map((m) => m.messageType),
    ['authenticationRequest'],
  );
  const amf = amfUeNgapIdOf(first.pdus[0]!)!;
  const ids = { amf, ran };
  const challenge = first.nas[0]!;
  assert.equal(challenge.messageType, 'authenticationRequest');
  const second = await step(
    h,
    radio,
    ue,
    uplinkNasTransport(ids, encodeNasMessage(ue.authenticationResponse(challenge))),
  );
  assert.deepEqual(
    second.nas.map((m) => m.messageType),
    ['securityModeCommand'],
  );
  const third = await step(h, radio, ue, uplinkNasTransport(ids, ue.securityModeComplete(request)));
  assert.deepEqual(
    third.nas.map((m) => m.messageType),
    ['registrationAccept'],
  );
  // KgNB from the uplink NAS COUNT of Security Mode Complete (TS 33.501 A.9), as the UE derives it.
  return { ids, accept: third, kgnb: ue.kgnb() };
}

/** A full initial registration (to Registration Complete); the ids and the 5G-GUTI assigned. */
export async function register(
  h: AmfHarness,
  radio: StepRadio,
  ue: TestUe,
  request = ue.registrationRequest(),
) {
  const { ids, accept, kgnb } = await registerUntilAccept(h, radio, ue, request);
  await step(h, radio, ue, initialContextSetupResponse(ids));
  await step(h, radio, ue, uplinkNasTransport(ids, ue.protect({ messageType: 'registrationComplete' })));
  return { ids, accept, kgnb, guti: lastGuti(ue) };
}

/** The 5G-GUTI of the last Registration Accept the UE received. */
export function lastGuti(ue: TestUe): NasMessageOf<'registrationAccept'>['fiveGGuti'] & { type: '5g-guti' } {
  const accept = ue.received.findLast((m) => m.messageType === 'registrationAccept');
  assert.ok(accept?.messageType === 'registrationAccept' && accept.fiveGGuti?.type === '5g-guti');
  return accept.fiveGGuti;
}

/** Service Request (TS 24.501 8.2.16) protected with the UE's current context, naming its 5G-S-TMSI. */
export function serviceRequestPdu(ue: TestUe): Uint8Array {
  const guti = lastGuti(ue);
  return ue.protect(
    {
      messageType: 'serviceRequest',
      ngKsi: ue.security!.ngKsi,
      serviceType: 0,
      fiveGSTmsi: {
        type: '5g-s-tmsi',
        amfSetId: guti.amfSetId,
        amfPointer: guti.amfPointer,
        tmsi: guti.tmsi,
      },
    },
    1,
  );
}
