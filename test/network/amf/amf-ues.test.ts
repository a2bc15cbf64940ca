import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAmfUes } from '../../../src/network/amf/context/amf-ues.ts';
import type { Guti } from '../../../src/network/nas/index.ts';

const gutiOf = (tmsi: number): Guti => ({
  type: '5g-guti',
  mcc: '001',
  mnc: '01',
  amfRegionId: 1,
  amfSetId: 1,
  amfPointer: 0,
  tmsi,
});

/** A registered context named by the 5G-GUTI of 5G-TMSI `tmsi`. */
function withGuti(tmsi: number) {
  const ues = createAmfUes({ limit: 10 });
  const ue = ues.create();
  assert.ok(ue);
  ues.setTmsi(ue, tmsi);
  ue.guti = gutiOf(tmsi);
  return { ues, ue };
}

describe('the AMF UE contexts: the 5G-GUTI of a Configuration Update (TS 24.501 5.4.4.2, 5.4.4.5)', () => {
  it('old and new 5G-GUTI both name the UE until it answers; then only the new one', () => {
    const { ues, ue } = withGuti(0x1111);
    ues.replaceGuti(ue, gutiOf(0x2222));
    assert.equal(ues.byTmsi(0x1111), ue);
    assert.equal(ues.byTmsi(0x2222), ue);
    assert.equal(ue.guti?.tmsi, 0x2222);
    ues.settleGuti(ue, 0x2222);
    assert.equal(ues.byTmsi(0x1111), undefined);
    assert.equal(ues.byTmsi(0x2222), ue);
    assert.equal(ue.oldGuti, undefined);
  });

  it('a UE that names itself with the old one keeps it; the new one is forgotten', () => {
    const { ues, ue } = withGuti(0x1111);
    ues.replaceGuti(ue, gutiOf(0x2222));
    ues.settleGuti(ue, 0x1111);
    assert.equal(ue.guti?.tmsi, 0x1111);
    assert.equal(ues.byTmsi(0x1111), ue);
    assert.equal(ues.byTmsi(0x2222), undefined);
    assert.equal(ue.oldGuti, undefined);
  });

  it('a second replacement before an answer forgets the oldest; a registration or removal forgets both', () => {
    const { ues, ue } = withGuti(0x1111);
    ues.replaceGuti(ue, gutiOf(0x2222));
    ues.replaceGuti(ue, gutiOf(0x3333));
    assert.deepEqual(
      [0x1111, 0x2222, 0x3333].map((tmsi) => ues.byTmsi(tmsi) === ue),
      [false, true, true],
    );
    ues.setTmsi(ue, 0x4444);
    ue.guti = gutiOf(0x4444);
    assert.deepEqual(
      [0x2222, 0x3333, 0x4444].map((tmsi) => ues.byTmsi(tmsi) === ue),
      [false, false, true],
    );
    ues.replaceGuti(ue, gutiOf(0x5555));
    ues.remove(ue);
    assert.equal(ues.byTmsi(0x4444), undefined);
    assert.equal(ues.byTmsi(0x5555), undefined);
    assert.equal(ues.tmsiInUse(0x5555), false);
  });

  it('settling without a replacement changes nothing', () => {
    const { ues, ue } = withGuti(0x1111);
    ues.settleGuti(ue, 0x9999);
    assert.equal(ue.guti?.tmsi, 0x1111);
    assert.equal(ues.byTmsi(0x1111), ue);
  });
});

describe('the AMF UE contexts: which subscribers they hold (the remembered subscription data)', () => {
  it('tells each SUPI as its first context is indexed and as its last leaves, not when one replaces another', () => {
    const told: string[] = [];
    const ues = createAmfUes({
      limit: 10,
      subscribers: {
        held: (supi) => told.push(`held ${supi}`),
        released: (supi) => told.push(`released ${supi}`),
      },
    });
    const first = ues.create();
    const second = ues.create();
    const registering = ues.create();
    assert.ok(first && second && registering);
    assert.equal(ues.setSupi(first, '1'), undefined);
    assert.equal(ues.setSupi(first, '1'), undefined, 'indexed again (a re-authentication)');
    // A context of the same subscriber takes the index over, then the old one goes.
    assert.equal(ues.setSupi(second, '1'), first);
    ues.remove(first);
    assert.deepEqual(told, ['held 1']);
    // A context that names a SUPI without being indexed under it (a registration not yet authenticated).
    registering.supi = '2';
    ues.remove(registering);
    assert.deepEqual(told, ['held 1']);
    ues.remove(second);
    assert.deepEqual(told, ['held 1', 'released 1']);
    assert.equal(ues.bySupi('1'), undefined);
  });
});
