// The AUSF/UDM roles over a fake authentication-data port, checked against the 5G-AKA chain of a real
// registration against open5gs (third-party/vectors/security-5g-aka-open5gs.json, SOURCE.md): the same
// AUTN for the same SQN and RAND, KSEAF for the UE's RES*, KAMF for the SUPI and ABBA 0000.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { f1, f5star, milenage } from '../../../src/crypto/milenage.ts';
import { createAusf, type PendingAuthentication } from '../../../src/network/ausf/index.ts';
import { ABBA, kamfFromKseaf } from '../../../src/network/security/kamf.ts';
import { fakeAuthenticationData } from './fake-authentication-data.ts';

const chain = (
  JSON.parse(
    readFileSync(
      new URL('../../../third-party/vectors/security-5g-aka-open5gs.json', import.meta.url),
      'utf8',
    ),
  ) as {
    hr_roaming_capture: {
      subscriber: { supi: string; K: string; OPc: string };
      serving_network_name: string;
      milenage: Record<'RAND' | 'AUTN' | 'SQN', string>;
      derived: Record<'RES_star' | 'KSEAF' | 'KAMF', string>;
    };
  }
).hr_roaming_capture;
const hex = (value: string): Buffer => Buffer.from(value, 'hex');
const SUPI = chain.subscriber.supi.replace(/^imsi-/, '');
const SNN = chain.serving_network_name;
const K = hex(chain.subscriber.K);
const OPC = hex(chain.subscriber.OPc);
const RAND = hex(chain.milenage.RAND);
// The port advances the stored SQN once (SEQ + 1, IND + 1) before the vector: SEQ 1, IND 31 (0x3f) -> SEQ 2, IND 0 (0x40).
const SQN_BEFORE = hex('00000000003f');

function setup(randoms: Buffer[] = [RAND]) {
  const port = fakeAuthenticationData({ [SUPI]: { k: K, opc: OPC, sqn: SQN_BEFORE } });
  let next = 0;
  const ausf = createAusf({
    authenticationData: port,
    randomBytes: (size) => {
      const value = randoms[next++ % randoms.length] ?? Buffer.alloc(size);
      assert.equal(value.length, size);
      return value;
    },
  });
  return { port, ausf };
}

/** SQN of an AUTN: SQN XOR AK, with AK = f5(RAND) (TS 33.102 6.3.2). */
function sqnOf(autn: Buffer, rand: Buffer): string {
  const { ak } = milenage({ key: K, opc: OPC, rand, sqn: Buffer.alloc(6), amf: Buffer.alloc(2) });
  return Buffer.from(autn.subarray(0, 6).map((byte, i) => byte ^ (ak[i] ?? 0))).toString('hex');
}

describe('AUSF: 5G-AKA (TS 33.501 6.1.3.2)', () => {
  it('builds the challenge open5gs sent, and gives KSEAF for the UE RES* of the capture', async () => {
    const { port, ausf } = setup();
    const challenge = await ausf.authenticate(SUPI, SNN);
    assert.ok(challenge);
    assert.equal(challenge.rand.toString('hex'), chain.milenage.RAND);
    assert.equal(challenge.autn.toString('hex'), chain.milenage.AUTN);
    assert.deepEqual(challenge.abba, ABBA);
    // The SQN in AUTN was stored before the challenge left.
    assert.equal(port.subscribers.get(SUPI)?.sqn.toString('hex'), chain.milenage.SQN);

    const confirmed = ausf.confirm(challenge.pending, hex(chain.derived.RES_star));
    assert.ok(confirmed.ok);
    assert.equal(confirmed.supi, SUPI);
    assert.equal(confirmed.kseaf.toString('hex'), chain.derived.KSEAF);
    assert.equal(kamfFromKseaf(confirmed.kseaf, confirmed.supi).toString('hex'), chain.derived.KAMF);
  });

  it('keeps XRES*, HXRES*, KAUSF, KSEAF, K and OPc out of what it returns', async () => {
    const { ausf } = setup();
    const challenge = await ausf.authenticate(SUPI, SNN);
    assert.ok(challenge);
    assert.deepEqual(Object.keys(challenge).sort(), ['abba', 'autn', 'pending', 'rand']);
    assert.deepEqual(Object.keys(challenge.pending).sort(), ['rand', 'servingNetworkName', 'supi']);
    assert.ok(Object.isFrozen(challenge.pending));
    const shown = JSON.stringify(challenge);
    for (const secret of [
      chain.derived.RES_star,
      chain.derived.KSEAF,
      chain.subscriber.K,
      chain.subscriber.OPc,
    ])
      assert.ok(!shown.includes(secret) && !shown.includes(JSON.stringify([...hex(secret)]).slice(1, -1)));
  });

  it('refuses a wrong RES*, and settles a challenge once', async () => {
    const { ausf } = setup();
    const challenge = await ausf.authenticate(SUPI, SNN);
    assert.ok(challenge);
    const wrong = hex(chain.derived.RES_star);
    wrong[0] = (wrong[0] ?? 0) ^ 0x80;
    assert.deepEqual(ausf.confirm(challenge.pending, wrong), { ok: false, reason: 'res-star-mismatch' });
    // One answer per challenge: the right RES* after a wrong one is too late.
    assert.deepEqual(ausf.confirm(challenge.pending, hex(chain.derived.RES_star)), {
      ok: false,
      reason: 'not-pending',
    });
    assert.deepEqual(ausf.confirm(challenge.pending, Uint8Array.of(1, 2, 3)), {
      ok: false,
      reason: 'not-pending',
    });
  });

  it('refuses a RES* of another length, and a pending authentication it did not make', async () => {
    const { ausf } = setup();
    const challenge = await ausf.authenticate(SUPI, SNN);
    assert.ok(challenge);
    assert.equal(ausf.confirm(challenge.pending, hex(chain.derived.RES_star).subarray(0, 8)).ok, false);
    const forged: PendingAuthentication = { supi: SUPI, servingNetworkName: SNN, rand: RAND };
    assert.deepEqual(ausf.confirm(forged, hex(chain.derived.RES_star)), { ok: false, reason: 'not-pending' });
    const other = setup();
    const elsewhere = await other.ausf.authenticate(SUPI, SNN);
    assert.ok(elsewhere);
    assert.deepEqual(ausf.confirm(elsewhere.pending, hex(chain.derived.RES_star)), {
      ok: false,
      reason: 'not-pending',
    });
  });

  it('answers undefined for an unknown subscriber', async () => {
    const { ausf } = setup();
    assert.equal(await ausf.authenticate('001010000000099', SNN), undefined);
  });

  it('two authentications at once for one SUPI get different SQNs', async () => {
    const { ausf } = setup([RAND, hex('00112233445566778899aabbccddeeff')]);
    const [first, second] = await Promise.all([ausf.authenticate(SUPI, SNN), ausf.authenticate(SUPI, SNN)]);
    assert.ok(first && second);
    const sqns = [sqnOf(first.autn, first.rand), sqnOf(second.autn, second.rand)];
    assert.deepEqual(sqns.sort(), ['000000000040', '000000000061']);
  });
});

describe('AUSF: resynchronisation (TS 33.102 6.3.5)', () => {
  // What a USIM whose SQN_MS is ahead sends: AUTS = SQN_MS XOR f5*(RAND) || f1*(SQN_MS, RAND, AMF 0000).
  const auts = (sqnMs: Buffer, key = K): Buffer => {
    const akStar = f5star(key, OPC, RAND);
    const concealed = Buffer.from(sqnMs.map((byte, i) => byte ^ (akStar[i] ?? 0)));
    return Buffer.concat([concealed, f1(key, OPC, RAND, sqnMs, Buffer.alloc(2)).macS]);
  };
  const SQN_MS = hex('0000000007e3');

  it('verifies MAC-S, stores SQN_MS, and the next challenge is fresh for the USIM', async () => {
    const { port, ausf } = setup([RAND, hex('ffeeddccbbaa99887766554433221100')]);
    const challenge = await ausf.authenticate(SUPI, SNN);
    assert.ok(challenge);
    assert.equal(await ausf.resynchronise(challenge.pending, auts(SQN_MS)), true);
    assert.deepEqual(port.resynchronised, [{ imsi: SUPI, sqnMs: SQN_MS }]);
    const next = await ausf.authenticate(SUPI, SNN);
    assert.ok(next);
    assert.equal(sqnOf(next.autn, next.rand), '000000000804');
    // The resynchronised challenge is settled: no KSEAF for it any more.
    assert.equal(ausf.confirm(challenge.pending, hex(chain.derived.RES_star)).ok, false);
  });

  it('refuses an AUTS with a wrong MAC-S or length, and a settled challenge, without touching the SQN', async () => {
    const { port, ausf } = setup();
    for (const bad of [auts(SQN_MS, Buffer.alloc(16, 1)), auts(SQN_MS).subarray(0, 13)]) {
      const challenge = await ausf.authenticate(SUPI, SNN);
      assert.ok(challenge);
      assert.equal(await ausf.resynchronise(challenge.pending, bad), false);
      assert.equal(await ausf.resynchronise(challenge.pending, auts(SQN_MS)), false);
    }
    assert.deepEqual(port.resynchronised, []);
  });
});
