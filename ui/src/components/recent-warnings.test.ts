import { describe, expect, it } from 'vitest';
import { recentWarnings } from './recent-warnings.ts';

const radio = (id: number, minute: number, level: string, event = 'Error Indication') => ({
  id,
  timestamp: `2026-11-22T10:${String(minute).padStart(2, '0')}:00.000+00:00`,
  level,
  ran_id: '001:01:000001',
  event,
});
const audit = (id: number, minute: number, level: string) => ({
  id,
  timestamp: `2026-11-22T10:${String(minute).padStart(2, '0')}:00.000+00:00`,
  level,
  actor: 'admin@example.com',
  action: 'login_failed',
});

describe('recent warnings', () => {
  it('keeps warnings and errors of both logs, whatever the case of their level, newest first', () => {
    const warnings = recentWarnings(
      [radio(1, 1, 'warn'), radio(2, 2, 'info'), radio(3, 5, 'error', 'NG Setup Failure')],
      [audit(1, 3, 'WARN'), audit(2, 4, 'INFO')],
    );
    expect(warnings.map((w) => [w.id, w.level, w.source, w.what])).toEqual([
      ['radio-3', 'error', 'radio log', 'NG Setup Failure'],
      ['audit-1', 'warn', 'audit log', 'login_failed'],
      ['radio-1', 'warn', 'radio log', 'Error Indication'],
    ]);
    expect(warnings[1]?.subject).toBe('admin@example.com');
  });

  it('keeps at most the limit, and nothing from quiet logs', () => {
    const many = Array.from({ length: 20 }, (_, n) => radio(n, n, 'warn'));
    expect(recentWarnings(many, [], 5).map((w) => w.id)).toEqual([
      'radio-19',
      'radio-18',
      'radio-17',
      'radio-16',
      'radio-15',
    ]);
    expect(recentWarnings([radio(1, 1, 'debug')], [audit(1, 1, 'INFO')])).toEqual([]);
  });
});
