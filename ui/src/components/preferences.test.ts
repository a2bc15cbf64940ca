import { describe, expect, it } from 'vitest';
import { parsePreferences } from './preferences.ts';

describe('preferences', () => {
  it('default to UTC and live', () => {
    expect(parsePreferences(null)).toEqual({ zone: 'utc', live: true });
  });

  it('read what was stored, field by field, ignoring what is not understood', () => {
    expect(parsePreferences('{"zone":"local","live":false}')).toEqual({ zone: 'local', live: false });
    expect(parsePreferences('{"zone":"mars","live":"no"}')).toEqual({ zone: 'utc', live: true });
    expect(parsePreferences('not json')).toEqual({ zone: 'utc', live: true });
    expect(parsePreferences('null')).toEqual({ zone: 'utc', live: true });
  });
});
