import { describe, expect, it } from 'vitest';
import { partCount } from './sms-parts.ts';

describe('partCount', () => {
  it('counts GSM 7-bit parts as 160 in one, 153 each when concatenated', () => {
    expect(partCount('')).toEqual({ ok: true, parts: 0, alphabet: 'GSM 7-bit' });
    expect(partCount('a'.repeat(160))).toEqual({ ok: true, parts: 1, alphabet: 'GSM 7-bit' });
    expect(partCount('a'.repeat(161))).toEqual({ ok: true, parts: 2, alphabet: 'GSM 7-bit' });
    expect(partCount('a'.repeat(306))).toEqual({ ok: true, parts: 2, alphabet: 'GSM 7-bit' });
    expect(partCount('a'.repeat(307))).toEqual({ ok: true, parts: 3, alphabet: 'GSM 7-bit' });
  });

  it('counts an extension character as two septets', () => {
    expect(partCount('€'.repeat(80))).toEqual({ ok: true, parts: 1, alphabet: 'GSM 7-bit' });
    expect(partCount('€'.repeat(81))).toEqual({ ok: true, parts: 2, alphabet: 'GSM 7-bit' });
  });

  it('counts UCS-2 parts as 70 in one, 67 each when concatenated', () => {
    expect(partCount('ж'.repeat(70))).toEqual({ ok: true, parts: 1, alphabet: 'UCS-2' });
    expect(partCount('ж'.repeat(71))).toEqual({ ok: true, parts: 2, alphabet: 'UCS-2' });
    expect(partCount('ж'.repeat(134))).toEqual({ ok: true, parts: 2, alphabet: 'UCS-2' });
    expect(partCount('ж'.repeat(135))).toEqual({ ok: true, parts: 3, alphabet: 'UCS-2' });
  });

  it('refuses text of more than 255 parts', () => {
    expect(partCount('a'.repeat(153 * 256)).ok).toBe(false);
  });
});
