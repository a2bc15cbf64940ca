import { useSyncExternalStore } from 'react';
import { browserStorage } from '../auth/session-hint.ts';

/**
 * The operator's display choices, kept in this browser: times in UTC or in the browser's zone, and whether
 * the pages refresh themselves (live) or stay as they are (paused).
 */
export interface Preferences {
  zone: 'utc' | 'local';
  live: boolean;
}

const KEY = 'pmn-core.preferences';
const DEFAULTS: Preferences = { zone: 'utc', live: true };

/** Stored text to preferences: anything unreadable or unknown falls back to the defaults, field by field. */
export function parsePreferences(text: string | null): Preferences {
  let stored: unknown;
  try {
    stored = text === null ? undefined : JSON.parse(text);
  } catch {
    stored = undefined;
  }
  const value = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  return {
    zone: value.zone === 'local' ? 'local' : DEFAULTS.zone,
    live: typeof value.live === 'boolean' ? value.live : DEFAULTS.live,
  };
}

function read(): Preferences {
  try {
    return parsePreferences(browserStorage()?.getItem(KEY) ?? null);
  } catch {
    return DEFAULTS;
  }
}

let current = read();
const listeners = new Set<() => void>();

export function setPreferences(change: Partial<Preferences>): void {
  current = { ...current, ...change };
  try {
    browserStorage()?.setItem(KEY, JSON.stringify(current));
  } catch {
    // Kept for this page's life only.
  }
  for (const listener of listeners) listener();
}

export function usePreferences(): Preferences {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
  );
}

/** A query's refetch interval: the given one while live, none while paused. */
export function useRefreshInterval(ms: number): number | false {
  return usePreferences().live ? ms : false;
}
