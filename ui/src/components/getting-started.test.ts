import { describe, expect, it } from 'vitest';
import { gettingStartedSteps, isEmptyNetwork, type Summary } from './getting-started.ts';

const EMPTY: Summary = { radios_connected: 0, subscribers: 0, subscribers_registered: 0, sessions_active: 0 };

describe('getting started', () => {
  it('is shown until the network has a subscriber and a radio', () => {
    expect(isEmptyNetwork(EMPTY)).toBe(true);
    expect(isEmptyNetwork({ ...EMPTY, subscribers: 3 })).toBe(true);
    expect(isEmptyNetwork({ ...EMPTY, radios_connected: 1 })).toBe(true);
    expect(isEmptyNetwork({ ...EMPTY, subscribers: 3, radios_connected: 1 })).toBe(false);
  });

  it('marks each step done as the service sees it, a connected radio proving the operator set', () => {
    const done = (summary: Summary) => gettingStartedSteps(summary, []).map((step) => step.done);
    expect(done(EMPTY)).toEqual([false, false, false, false, false]);
    expect(done({ ...EMPTY, subscribers: 1 })).toEqual([false, true, false, false, false]);
    expect(
      done({ radios_connected: 1, subscribers: 1, subscribers_registered: 1, sessions_active: 0 }),
    ).toEqual([true, true, true, true, false]);
  });

  it('says where radios connect when N2 runs, and that it does not otherwise', () => {
    const connect = (listeners: string[] | undefined) => gettingStartedSteps(EMPTY, listeners)[2]?.hint;
    expect(connect(['127.0.0.1:38412'])).toBe("point the gNB's AMF address at 127.0.0.1:38412 (SCTP)");
    expect(connect([])).toMatch(/^N2 is not running/);
    expect(connect(undefined)).toMatch(/^N2 is not running/);
  });
});
