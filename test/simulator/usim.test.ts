// The USIM against the home network side it must agree with: the AUSF (src/network/ausf) over a fake
// authentication-data port, and the published 5G-AKA chain of an open5gs capture
// (third-party/vectors/security-5g-aka-open5gs.json, open5gs docs/assets/pcapng/5g-roaming-hr.pcapng).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { generateAuthenticationVector } from '../../src/crypto/five-g-aka.ts';
import { deriveKamf, servingNetworkName } from '../../src/crypto/key-hierarchy.ts';
import { createAusf } from '../../src/network/ausf/index.ts';
import { kamfFromKseaf } from '../../src/network/security/kamf.ts';
import { Usim } from '../../src/simulator/ue/usim.ts';
import { fakeAuthenticationData } from '../network/ausf/fake-authentication-data.ts';

interface Open5gsVectors {
  hr_roaming_capture: {
    subscriber: { supi: string; K: string; OPc: string };
    serving_network_name: string;
    milenage: { RAND: string; AUTN: string; SQN: string };
    derived: { RES_star: string; KAUSF: string; KSEAF: string; KAMF: string };
  };
}

const vectors = JSON.parse(
  readFileSync(new URL('../../third-party/vectors/security-5g-aka-open5gs.json', import.meta.url), 'utf8'),
) as Open5gsVectors;
const capture = vectors.hr_roaming_capture;
const hex = (text: string): Buffer => Buffer.from(text, 'hex');

const IMSI = '001010000000001';
const K = hex('465b5ce8b199b49faa5f0a2ee238a6bc');
const OPC = hex('e8ed289deba952e4283b54e88e6183ca');
const SNN = servingNetworkName('001', '01');

function network(sqn = '000000000000') {
  const port = fakeAuthenticationData({ [IMSI]: { k: K, opc: OPC, sqn: hex(sqn) } });
  return { port, ausf: createAusf({ authenticationData: port }) };
}

describe('USIM (TS 33.102 Annex C, TS 33.501 6.1.3.2)', () => {
  it('answers the open5gs capture: RES*, KAUSF, KSEAF and KAMF as published', () => {
    const usim = new Usim({ key: hex(capture.subscriber.K), opc: hex(capture.subscriber.OPc) });
    const answer = usim.authenticate(
      hex(capture.milenage.RAND),
      hex(capture.milenage.AUTN),
      capture.serving_network_name,
    );
    assert.equal(answer.kind, 'accepted');
    assert.ok(answer.kind === 'accepted');
    assert.equal(answer.resStar.toString('hex'), capture.derived.RES_star);
    assert.equal(answer.kausf.toString('hex'), capture.derived.KAUSF);
    assert.equal(answer.kseaf.toString('hex'), capture.derived.KSEAF);
    assert.equal(answer.sqn.toString('hex'), capture.milenage.SQN);
    const kamf = deriveKamf(answer.kseaf, capture.subscriber.supi, Buffer.alloc(2));
    assert.equal(kamf.toString('hex'), capture.derived.KAMF);
  });

  it("answers the AUSF's challenge; the AUSF confirms RES* and both sides hold the same KAMF", async () => {
    const { ausf } = network();
    const usim = new Usim({ key: K, opc: OPC });
    const challenge = await ausf.authenticate(IMSI, SNN);
    assert.ok(challenge);
    const answer = usim.authenticate(challenge.rand, challenge.autn, SNN);
    assert.ok(answer.kind === 'accepted', answer.kind);
    const confirmed = ausf.confirm(challenge.pending, answer.resStar);
    assert.ok(confirmed.ok);
    assert.deepEqual(
      deriveKamf(answer.kseaf, IMSI, challenge.abba),
      kamfFromKseaf(confirmed.kseaf, IMSI, challenge.abba),
    );
  });

  it('a card ahead of the network: synch failure with AUTS; the AUSF resynchronises and the next challenge passes', async () => {
    const { ausf, port } = network('000000000020');
    const usim = new Usim({ key: K, opc: OPC }, hex('000000100000'));
    const first = await ausf.authenticate(IMSI, SNN);
    assert.ok(first);
    const failure = usim.authenticate(first.rand, first.autn, SNN);
    assert.ok(failure.kind === 'synch-failure', failure.kind);
    assert.equal(failure.auts.length, 14);
    assert.equal(await ausf.resynchronise(first.pending, failure.auts), true);
    assert.equal(port.resynchronised[0]?.sqnMs.toString('hex'), '000000100000');
    const second = await ausf.authenticate(IMSI, SNN);
    assert.ok(second);
    const answer = usim.authenticate(second.rand, second.autn, SNN);
    assert.ok(answer.kind === 'accepted', answer.kind);
    assert.ok(ausf.confirm(second.pending, answer.resStar).ok);
  });

  it('the same challenge twice: the second is not fresh (a replayed AUTN)', async () => {
    const { ausf } = network();
    const usim = new Usim({ key: K, opc: OPC });
    const challenge = await ausf.authenticate(IMSI, SNN);
    assert.ok(challenge);
    assert.equal(usim.authenticate(challenge.rand, challenge.autn, SNN).kind, 'accepted');
    assert.equal(usim.authenticate(challenge.rand, challenge.autn, SNN).kind, 'synch-failure');
  });

  it('vectors used out of order pass when their IND differs (C.2.2), a SEQ jump beyond Δ does not', async () => {
    const { ausf } = network();
    const usim = new Usim({ key: K, opc: OPC });
    const a = await ausf.authenticate(IMSI, SNN);
    const b = await ausf.authenticate(IMSI, SNN);
    assert.ok(a && b);
    assert.equal(usim.authenticate(b.rand, b.autn, SNN).kind, 'accepted');
    assert.equal(usim.authenticate(a.rand, a.autn, SNN).kind, 'accepted');
    // SEQ 2^28 + 5 is 2^28 + 3 above the highest accepted SEQ (2): beyond Δ = 2^28.
    const far = generateAuthenticationVector({
      key: K,
      opc: OPC,
      sqn: Buffer.from((((1n << 28n) + 5n) << 5n).toString(16).padStart(12, '0'), 'hex'),
      rand: Buffer.alloc(16, 7),
      servingNetworkName: SNN,
    });
    assert.equal(usim.authenticate(far.rand, far.autn, SNN).kind, 'synch-failure');
  });

  it('a wrong K: MAC failure; an AMF field without the separation bit: non-5G authentication', async () => {
    const { ausf } = network();
    const challenge = await ausf.authenticate(IMSI, SNN);
    assert.ok(challenge);
    const wrong = new Usim({ key: Buffer.alloc(16, 1), opc: OPC });
    assert.equal(wrong.authenticate(challenge.rand, challenge.autn, SNN).kind, 'mac-failure');
    const umts = generateAuthenticationVector({
      key: K,
      opc: OPC,
      sqn: hex('000000000040'),
      rand: Buffer.alloc(16, 3),
      servingNetworkName: SNN,
      amf: Buffer.from([0x00, 0x00]),
    });
    assert.equal(
      new Usim({ key: K, opc: OPC }).authenticate(umts.rand, umts.autn, SNN).kind,
      'non-5g-authentication',
    );
    assert.equal(
      new Usim({ key: K, opc: OPC }).authenticate(Buffer.alloc(3), umts.autn, SNN).kind,
      'malformed',
    );
  });
});
