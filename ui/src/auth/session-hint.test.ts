import { describe, expect, it } from 'vitest';
import { mayHaveSession, noteSession } from './session-hint.ts';

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

describe('session hint', () => {
  it('is absent until a sign-in notes it, and gone after a sign-out', () => {
    const storage = memoryStorage();
    expect(mayHaveSession(storage)).toBe(false);
    noteSession(true, storage);
    expect(mayHaveSession(storage)).toBe(true);
    noteSession(false, storage);
    expect(mayHaveSession(storage)).toBe(false);
  });

  it('reads as present when storage is unavailable or throws, so the refresh is still asked', () => {
    expect(mayHaveSession(undefined)).toBe(true);
    const throwing = {
      getItem: () => {
        throw new Error('denied');
      },
    };
    expect(mayHaveSession(throwing)).toBe(true);
  });
});
