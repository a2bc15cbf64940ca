import { describe, expect, it } from 'vitest';
import { sampleValue } from './prometheus-text.ts';

describe('Prometheus text samples', () => {
  const text = [
    '# HELP pmn_subscribers_registered Subscribers registered now',
    '# TYPE pmn_subscribers_registered gauge',
    'pmn_subscribers_registered 3',
    'pmn_sessions_active 12 1700000000000',
    'pmn_sessions_active_total 99',
    'pmn_http_requests_total{route="/api/v1/status"} 4',
    'pmn_broken NaN',
    '',
  ].join('\n');

  it('reads an unlabelled sample, with or without a timestamp, by its exact name', () => {
    expect(sampleValue(text, 'pmn_subscribers_registered')).toBe(3);
    expect(sampleValue(text, 'pmn_sessions_active')).toBe(12);
  });

  it('is undefined for an absent, labelled-only or non-numeric metric', () => {
    expect(sampleValue(text, 'pmn_radios_connected')).toBeUndefined();
    expect(sampleValue(text, 'pmn_http_requests_total')).toBeUndefined();
    expect(sampleValue(text, 'pmn_broken')).toBeUndefined();
    expect(sampleValue('', 'pmn_sessions_active')).toBeUndefined();
  });
});
