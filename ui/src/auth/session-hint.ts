/**
 * Whether this browser may hold a session cookie. The cookie is httpOnly, so the page cannot see it; without
 * this note every load of a signed-out browser would ask `POST /auth/refresh` and get a 401, which the
 * browser logs as a console error. The note is set at sign-in and cleared at sign-out or when a refresh
 * fails; it only saves a request, the cookie still decides. Storage may be unavailable (private modes,
 * policies): then it reads as present, and the refresh is asked as before.
 */
const KEY = 'pmn-core.session';

export function mayHaveSession(storage: Pick<Storage, 'getItem'> | undefined): boolean {
  try {
    return storage === undefined || storage.getItem(KEY) !== null;
  } catch {
    return true;
  }
}

export function noteSession(
  present: boolean,
  storage: Pick<Storage, 'setItem' | 'removeItem'> | undefined,
): void {
  try {
    if (present) storage?.setItem(KEY, '1');
    else storage?.removeItem(KEY);
  } catch {
    // Nothing to remember then: the next load asks the service.
  }
}

/** The browser's local storage, or undefined where reading it throws. */
export function browserStorage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}
