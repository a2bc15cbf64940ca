import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { enterPhase, type HandoverPhase } from '../../../src/network/amf/n2/handover-state.ts';

const at = (phase: HandoverPhase<string>): { phase: HandoverPhase<string> } => ({ phase });

describe('N2 handover phases (TS 38.413 8.4.1-8.4.5)', () => {
  it('prepares, is commanded and ends; or is cancelled and ends', () => {
    const h = at({ kind: 'preparing', requested: false });
    enterPhase(h, { kind: 'preparing', requested: true });
    enterPhase(h, { kind: 'prepared', target: 'target connection' });
    enterPhase(h, { kind: 'ended' });
    assert.equal(h.phase.kind, 'ended');
    const cancelled = at({ kind: 'preparing', requested: true });
    enterPhase(cancelled, { kind: 'cancelled' });
    enterPhase(cancelled, { kind: 'ended' });
    assert.equal(cancelled.phase.kind, 'ended');
  });

  it('refuses what the AMF never does: back to preparing, a cancelled handover commanded, anything after the end', () => {
    const refused: [HandoverPhase<string>, HandoverPhase<string>][] = [
      [
        { kind: 'prepared', target: 't' },
        { kind: 'preparing', requested: true },
      ],
      [{ kind: 'prepared', target: 't' }, { kind: 'cancelled' }],
      [{ kind: 'cancelled' }, { kind: 'prepared', target: 't' }],
      [{ kind: 'cancelled' }, { kind: 'preparing', requested: true }],
      [{ kind: 'ended' }, { kind: 'ended' }],
      [{ kind: 'ended' }, { kind: 'preparing', requested: false }],
    ];
    for (const [from, to] of refused) {
      const h = at(from);
      assert.throws(() => enterPhase(h, to), /illegal handover transition/, `${from.kind} -> ${to.kind}`);
      assert.equal(h.phase, from, 'unchanged');
    }
  });
});
