import { describe, expect, it } from 'vitest';
import { LANES, placeOf } from './timeline-lanes.ts';

describe('timeline lanes', () => {
  it('puts each kind on its lanes, every step within the four', () => {
    expect(placeOf({ kind: 'nas', direction: 'inbound' })).toEqual({
      from: 0,
      span: 3,
      path: 'UE to AMF/SMF',
    });
    expect(placeOf({ kind: 'nas', direction: 'outbound' })).toEqual({
      from: 0,
      span: 3,
      path: 'AMF/SMF to UE',
    });
    expect(placeOf({ kind: 'ngap', direction: 'inbound' })).toEqual({ from: 1, span: 2, path: 'gNB to AMF' });
    expect(placeOf({ kind: 'ngap', direction: 'outbound' })).toEqual({
      from: 1,
      span: 2,
      path: 'AMF to gNB',
    });
    expect(placeOf({ kind: 'state', direction: null })).toEqual({ from: 2, span: 1, path: 'AMF' });
    expect(placeOf({ kind: 'session', direction: null })).toEqual({ from: 2, span: 2, path: 'SMF to UPF' });
    expect(placeOf({ kind: 'upf', direction: null })).toEqual({ from: 3, span: 1, path: 'UPF' });
    for (const kind of ['nas', 'ngap', 'state', 'session', 'upf'] as const) {
      const { from, span } = placeOf({ kind, direction: null });
      expect(from + span).toBeLessThanOrEqual(LANES.length);
      // The lane a step ends on names the side it is about: the core for messages and states.
      expect(LANES[from + span - 1]).toBe(kind === 'session' || kind === 'upf' ? 'UPF' : 'AMF/SMF');
    }
  });
});
