import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AmfDescription, Guami } from '../../src/simulator/amf-messages.ts';
import type { AmfCandidate, UeAmfHint } from '../../src/simulator/amf-selection.ts';
import { selectAmf } from '../../src/simulator/amf-selection.ts';

const plmn = { mcc: '001', mnc: '01' };
const guami = (pointer: number, backupAmfName?: string, setId = '001'): Guami => ({
  plmn,
  regionId: '01',
  setId,
  pointer: pointer.toString(16).padStart(2, '0'),
  ...(backupAmfName === undefined ? {} : { backupAmfName }),
});

interface Named extends AmfCandidate {
  label: string;
}

/** An AMF of set 1/1 as this core describes itself: its own GUAMI first, then its peers'. */
function amf(
  label: string,
  servedGuamis: Guami[],
  relativeCapacity: number | undefined = 100,
  options: { ready?: boolean; unavailable?: Guami[] } = {},
): Named {
  const description: AmfDescription = { name: label, servedGuamis, relativeCapacity, plmnSupport: [] };
  return {
    label,
    ready: options.ready ?? true,
    amf: description,
    unavailableGuamis: options.unavailable ?? [],
  };
}

/** Three members: a (pointer 1, backup b), b (pointer 2, backup c), c (pointer 3, backup a). */
function set(options: Partial<Record<'a' | 'b' | 'c', { ready?: boolean; unavailable?: Guami[] }>> = {}) {
  const all = [guami(1, 'b'), guami(2, 'c'), guami(3, 'a')];
  const own = (i: number): Guami[] => [all[i]!, ...all.filter((_, j) => j !== i)];
  return [amf('a', own(0), 10, options.a), amf('b', own(1), 10, options.b), amf('c', own(2), 250, options.c)];
}

const sTmsi = (amfPointer: number, amfSetId = 1): UeAmfHint => ({ kind: 's-tmsi', amfSetId, amfPointer });
const pick = (candidates: Named[], hint: UeAmfHint, random = 0.5) => {
  const selection = selectAmf(candidates, hint, () => random);
  return selection === undefined ? undefined : [selection.candidate.label, selection.reason];
};

describe('AMF selection of a gNB with several AMFs (TS 38.300 4.2, TS 23.501 6.3.5, 5.21.2)', () => {
  it('a UE without an AMF goes by relative capacity: each AMF takes its share of the random range', () => {
    const candidates = [amf('a', [guami(1)], 1), amf('b', [guami(2)], 3)];
    const counts = new Map<string, number>();
    for (let i = 0; i < 400; i++) {
      const chosen = selectAmf(candidates, undefined, () => (i + 0.5) / 400);
      assert.equal(chosen?.reason, 'capacity');
      const label = chosen?.candidate.label ?? 'none';
      counts.set(label, (counts.get(label) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(counts), { a: 100, b: 300 });
  });

  it('capacity 0 takes no new UEs while another AMF has some; all at 0 share alike; none given counts as 1', () => {
    const zero = amf('a', [guami(1)], 0);
    for (const random of [0, 0.25, 0.5, 0.99])
      assert.deepEqual(pick([zero, amf('b', [guami(2)], 1)], undefined, random), ['b', 'capacity']);
    assert.deepEqual(pick([zero, amf('b', [guami(2)], 0)], undefined, 0.2), ['a', 'capacity']);
    assert.deepEqual(pick([zero, amf('b', [guami(2)], 0)], undefined, 0.7), ['b', 'capacity']);
    assert.deepEqual(pick([amf('a', [guami(1)], undefined), amf('b', [guami(2)], 1)], undefined, 0.4), [
      'a',
      'capacity',
    ]);
  });

  it('an AMF not ready (association lost, NG Setup not accepted) is never chosen; none ready: no AMF', () => {
    const candidates = [amf('a', [guami(1)], 255, { ready: false }), amf('b', [guami(2)], 1)];
    for (const random of [0, 0.5, 0.99])
      assert.deepEqual(pick(candidates, undefined, random), ['b', 'capacity']);
    assert.equal(pick([amf('a', [guami(1)], 255, { ready: false })], undefined), undefined);
  });

  it('a UE with a 5G-S-TMSI goes to the AMF serving its GUAMI, whatever the capacities, though every member lists it', () => {
    for (const random of [0, 0.5, 0.99]) {
      assert.deepEqual(pick(set(), sTmsi(1), random), ['a', 'guami']);
      assert.deepEqual(pick(set(), sTmsi(2), random), ['b', 'guami']);
      assert.deepEqual(pick(set(), sTmsi(3), random), ['c', 'guami']);
    }
    // By GUAMI (registeredAMF): the same rule, region and PLMN matched too.
    assert.deepEqual(pick(set(), { kind: 'guami', guami: guami(2) }), ['b', 'guami']);
  });

  it('its AMF lost (TS 23.501 5.21.2.3): the backup named in the ServedGUAMIList, not the biggest AMF', () => {
    for (const random of [0, 0.5, 0.99]) {
      assert.deepEqual(pick(set({ a: { ready: false } }), sTmsi(1), random), ['b', 'backup']);
      assert.deepEqual(pick(set({ b: { ready: false } }), sTmsi(2), random), ['c', 'backup']);
    }
  });

  it('its GUAMI declared unavailable by AMF Status Indication (TS 38.413 8.7.6.2): the backup it names comes first, else the listed one', () => {
    const byIndication = set({ a: { unavailable: [guami(1, 'c')] } });
    assert.deepEqual(pick(byIndication, sTmsi(1), 0), ['c', 'backup']);
    const noName = set({ a: { unavailable: [guami(1)] } });
    assert.deepEqual(pick(noName, sTmsi(1), 0.99), ['b', 'backup']);
    // The other GUAMIs still go to their AMFs.
    assert.deepEqual(pick(noName, sTmsi(3)), ['c', 'guami']);
  });

  it('no backup reachable: another AMF of the same set by capacity, never the lost one or an AMF of another set', () => {
    const candidates = [
      ...set({ a: { ready: false }, b: { ready: false } }),
      amf('other-set', [guami(1, undefined, '002')], 255),
    ];
    for (const random of [0, 0.5, 0.99])
      assert.deepEqual(pick(candidates, sTmsi(1), random), ['c', 'same-set']);
  });

  it('an AMF that declared its own GUAMI unavailable (draining, TS 23.501 5.21.2.2) takes no new UE; all of them: still one', () => {
    const draining = { unavailable: [guami(3, 'a')] };
    // c holds most of the capacity: every new UE would go to it.
    for (const random of [0, 0.5, 0.99]) {
      assert.notEqual(pick(set({ c: draining }), undefined, random)?.[0], 'c');
      assert.equal(pick(set({ c: draining }), undefined, random)?.[1], 'capacity');
    }
    // A peer's GUAMI it declared unavailable does not stop it taking new UEs.
    assert.equal(pick(set({ c: { unavailable: [guami(1, 'b')] } }), undefined, 0.99)?.[0], 'c');
    const all = set({
      a: { unavailable: [guami(1, 'b')] },
      b: { unavailable: [guami(2, 'c')] },
      c: draining,
    });
    assert.equal(pick(all, undefined, 0.99)?.[0], 'c');
    // Its UEs' next NAS messages go to the backup it named.
    assert.deepEqual(pick(set({ c: draining }), sTmsi(3), 0.99), ['a', 'backup']);
  });

  it('a 5G-S-TMSI of a set no AMF here serves goes by capacity', () => {
    const candidates = [amf('a', [guami(1)], 1), amf('b', [guami(2)], 3)];
    assert.deepEqual(pick(candidates, sTmsi(1, 7), 0.1), ['a', 'capacity']);
    assert.deepEqual(pick(candidates, sTmsi(1, 7), 0.9), ['b', 'capacity']);
  });
});
