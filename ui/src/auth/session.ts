import { useSyncExternalStore } from 'react';
import { api, result, setBearerToken, setUnauthorizedHandler } from '../api/client.ts';
import { browserStorage, mayHaveSession, noteSession } from './session-hint.ts';
import { refreshDelay } from './token-timing.ts';

/**
 * The browser's session. The service keeps it in an httpOnly cookie (30 days) and hands out 15-minute
 * bearer tokens; the token lives only in memory and is refreshed a minute before it expires, so a reload
 * asks the cookie for a new one and a sign-out ends the session on the service.
 */
export type Session =
  { state: 'checking' } | { state: 'signed-out'; reason?: string } | { state: 'signed-in'; token: string };

let session: Session = { state: 'checking' };
const listeners = new Set<() => void>();
let cancelRefresh: () => void = () => undefined;

function set(next: Session): void {
  session = next;
  cancelRefresh();
  cancelRefresh = () => undefined;
  switch (next.state) {
    case 'signed-in': {
      noteSession(true, browserStorage());
      setBearerToken(next.token);
      const timer = setTimeout(() => void refresh(), refreshDelay(next.token, Date.now()));
      cancelRefresh = () => clearTimeout(timer);
      break;
    }
    case 'signed-out':
      noteSession(false, browserStorage());
      setBearerToken(undefined);
      break;
    case 'checking':
      setBearerToken(undefined);
      break;
  }
  for (const listener of listeners) listener();
}

/** Asks the session cookie for a new bearer token; without a live session the browser is signed out. */
export async function refresh(): Promise<void> {
  try {
    const { token } = await result(api.POST('/api/v1/auth/refresh'));
    set({ state: 'signed-in', token });
  } catch {
    set({ state: 'signed-out' });
  }
}

/** At load: a browser that never signed in (or signed out) has no session to refresh. */
export async function resume(): Promise<void> {
  if (mayHaveSession(browserStorage())) await refresh();
  else set({ state: 'signed-out' });
}

export async function signIn(email: string, password: string): Promise<void> {
  const { token } = await result(api.POST('/api/v1/auth/login', { body: { email, password } }));
  set({ state: 'signed-in', token });
}

/** First start: the service creates the admin and opens its session. */
export async function initialize(email: string, password: string): Promise<void> {
  const answer = await result(api.POST('/api/v1/init', { body: { email, password } }));
  set({ state: 'signed-in', token: answer.token });
}

export async function signOut(): Promise<void> {
  try {
    await api.POST('/api/v1/auth/logout');
  } finally {
    set({ state: 'signed-out' });
  }
}

setUnauthorizedHandler(() => set({ state: 'signed-out', reason: 'Your session ended: sign in again.' }));

export function useSession(): Session {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => session,
  );
}
