import { describe, expect, it } from 'vitest';
import { distinct, radioOfDetails, recordTitle } from './record-title.ts';

describe('record title', () => {
  it('names the message, the radio and the way it went, and the time', () => {
    const time = '2026-11-22 10:15:30.123 UTC';
    expect(recordTitle({ what: 'NGSetupRequest', direction: 'inbound', peer: 'gnb-1', time })).toBe(
      'NGSetupRequest from gnb-1 · 2026-11-22 10:15:30.123 UTC',
    );
    expect(recordTitle({ what: 'NGSetupResponse', direction: 'outbound', peer: 'gnb-1', time })).toBe(
      'NGSetupResponse to gnb-1 · 2026-11-22 10:15:30.123 UTC',
    );
    expect(recordTitle({ what: 'NGSetupRequest', direction: 'inbound', peer: undefined, time })).toBe(
      'NGSetupRequest · 2026-11-22 10:15:30.123 UTC',
    );
  });

  it("reads the radio from a radio event's details, by name or else by id", () => {
    expect(radioOfDetails('{"radio":"gnb-1","ran_id":"001:01:000001"}')).toBe('gnb-1');
    expect(radioOfDetails('{"ran_id":"001:01:000001"}')).toBe('001:01:000001');
    expect(radioOfDetails('{}')).toBeUndefined();
    expect(radioOfDetails('not json')).toBeUndefined();
    expect(radioOfDetails('[1]')).toBeUndefined();
  });

  it('lists distinct non-empty values, sorted', () => {
    expect(distinct([{ t: 'b' }, { t: 'a' }, { t: 'b' }, { t: '' }], (x) => x.t)).toEqual(['a', 'b']);
    expect(distinct(undefined, (x: { t: string }) => x.t)).toEqual([]);
  });
});
