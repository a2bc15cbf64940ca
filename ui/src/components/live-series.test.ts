import { describe, expect, it } from 'vitest';
import { appendSample, type LiveSample } from './live-series.ts';

const sample = (at: number, registered = 1, sessions = 2): LiveSample => ({ at, registered, sessions });

describe('live series', () => {
  it('adds samples in time order and keeps the last ones', () => {
    let series: LiveSample[] = [];
    for (let at = 1; at <= 5; at += 1) series = appendSample(series, sample(at), 3);
    expect(series.map((s) => s.at)).toEqual([3, 4, 5]);
  });

  it('leaves out a sample not newer than the last', () => {
    const series = [sample(10)];
    expect(appendSample(series, sample(10, 7))).toEqual([sample(10)]);
    expect(appendSample(series, sample(9, 7))).toEqual([sample(10)]);
  });
});
