import { describe, expect, it } from 'vitest';
import { deviceNamed, recentWarnings, suciSummary } from './recent-warnings.ts';

const at = (minute: number) => `2026-11-22T10:${String(minute).padStart(2, '0')}:00.000+00:00`;
const radio = (id: number, minute: number, level: string, event = 'Error Indication') => ({
  id,
  timestamp: at(minute),
  level,
  ran_id: '001:01:000001',
  event,
});
const audit = (id: number, minute: number, level: string) => ({
  id,
  timestamp: at(minute),
  level,
  actor: 'admin@example.com',
  action: 'login_failed',
});
const subscriber = (
  id: number,
  minute: number,
  level: string,
  imsi: string,
  event: string,
  details: object | string,
) => ({
  id,
  timestamp: at(minute),
  level,
  imsi,
  event,
  details: typeof details === 'string' ? details : JSON.stringify(details),
});
// A Profile A SUCI of home network 001-01 under key 2 (its scheme output shortened).
const SUCI = 'suci-0-001-01-0000-1-2-8ab3f1c2d4e5';

describe('recent warnings', () => {
  it('keeps warnings and errors of the three logs, whatever the case of their level, newest first', () => {
    const warnings = recentWarnings({
      radioLogs: [radio(1, 1, 'warn'), radio(2, 2, 'info'), radio(3, 5, 'error', 'NG Setup Failure')],
      subscriberLogs: [
        subscriber(1, 6, 'info', '001010000000001', 'Registration Request', {}),
        subscriber(2, 7, 'warn', '001010000000001', 'Authentication Failure', {
          radio: 'gnb-1',
          cause: 'MAC failure (20)',
        }),
      ],
      auditLogs: [audit(1, 3, 'WARN'), audit(2, 4, 'INFO')],
    });
    expect(warnings.map((w) => [w.id, w.level, w.source, w.subject, w.what])).toEqual([
      [
        'subscriber-2',
        'warn',
        'subscriber log',
        '001010000000001 on gnb-1',
        'Authentication Failure: MAC failure (20)',
      ],
      ['radio-3', 'error', 'radio log', '001:01:000001', 'NG Setup Failure'],
      ['audit-1', 'warn', 'audit log', 'admin@example.com', 'login_failed'],
      ['radio-1', 'warn', 'radio log', '001:01:000001', 'Error Indication'],
    ]);
  });

  it("names a device of no subscriber by what the core knows: the SUCI's home network, scheme and key, or its 5G-GUTI", () => {
    const warnings = recentWarnings({
      radioLogs: [],
      subscriberLogs: [
        subscriber(1, 1, 'warn', '', 'Registration Reject', {
          radio: 'gnb-1',
          suci: SUCI,
          cause: '5GS services not allowed (7)',
        }),
        subscriber(2, 2, 'warn', '', 'Registration Reject', { guti: '00101010040abcdef01' }),
        subscriber(3, 3, 'warn', '', 'Registration Reject', 'not json'),
      ],
      auditLogs: [],
    });
    expect(warnings.map((w) => [w.subject, w.what])).toEqual([
      ['unidentified device', 'Registration Reject'],
      ['5G-GUTI 00101010040abcdef01', 'Registration Reject'],
      [
        'SUCI of home network 001-01, Profile A, key 2 on gnb-1',
        'Registration Reject: 5GS services not allowed (7)',
      ],
    ]);
    expect(warnings.every((warning) => warning.explanation === undefined)).toBe(true);
    expect(suciSummary('suci-0-001-01-0000-0-0-0000000001')).toBe(
      'SUCI of home network 001-01, null scheme, key 0',
    );
    expect(suciSummary('nai@example.org')).toBe('SUCI nai@example.org');
    // The subscriber logs page names the device the same way (its IMSI when it has one).
    expect(deviceNamed('', JSON.stringify({ suci: SUCI }))).toBe(
      'SUCI of home network 001-01, Profile A, key 2',
    );
    expect(deviceNamed('001010000000001', JSON.stringify({ suci: SUCI }))).toBe('001010000000001');
  });

  it("explains a device of no subscriber refused for its SUCI's key, by the keys the core has", () => {
    const refused = subscriber(1, 1, 'warn', '', 'Registration Reject', {
      suci: SUCI,
      cause: '5GS services not allowed (7)',
    });
    const known = subscriber(2, 2, 'warn', '001010000000001', 'Registration Reject', {
      suci: SUCI,
      cause: '5GS services not allowed (7)',
    });
    const [second, first] = recentWarnings({
      radioLogs: [],
      subscriberLogs: [refused, known],
      auditLogs: [],
      homeNetworkKeys: [
        { scheme: 'A', id: 1 },
        { scheme: 'A', id: 3 },
        { scheme: 'B', id: 2 },
      ],
    });
    expect(first?.explanation).toMatch(
      /^The SUCI names home network key 2 \(Profile A\); this core has Profile A keys 1 and 3, so the core cannot read the identity/,
    );
    // A subscriber's failures are explained in its timeline, where its profile and policies are known.
    expect(second?.explanation).toBeUndefined();
  });

  it('keeps at most the limit, and nothing from quiet logs', () => {
    const many = Array.from({ length: 20 }, (_, n) => radio(n, n, 'warn'));
    expect(
      recentWarnings({ radioLogs: many, subscriberLogs: [], auditLogs: [] }, 5).map((w) => w.id),
    ).toEqual(['radio-19', 'radio-18', 'radio-17', 'radio-16', 'radio-15']);
    expect(
      recentWarnings({
        radioLogs: [radio(1, 1, 'debug')],
        subscriberLogs: [subscriber(1, 1, 'info', '001010000000001', 'Registration Accept', {})],
        auditLogs: [audit(1, 1, 'INFO')],
      }),
    ).toEqual([]);
  });
});
