import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** An answer of the service that is not a success: its status and its `{"error"}` message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The bearer token the requests carry; the session module sets it (auth/session.ts). */
let bearerToken: string | undefined;
export function setBearerToken(token: string | undefined): void {
  bearerToken = token;
}

/** Called when an authenticated request answers 401: the session ended elsewhere. */
let onUnauthorized: () => void = () => undefined;
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

const authentication: Middleware = {
  onRequest({ request }) {
    if (bearerToken) request.headers.set('authorization', `Bearer ${bearerToken}`);
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && request.headers.has('authorization')) onUnauthorized();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: '' });
api.use(authentication);

/**
 * The `result` of an openapi-fetch answer, or an ApiError with the service's message. A failed fetch
 * (service unreachable) is an ApiError with status 0, so every page shows a message, never a blank.
 */
export async function result<T>(
  call: Promise<{ data?: { result: T }; error?: unknown; response: Response }>,
): Promise<T> {
  let answer: Awaited<typeof call>;
  try {
    answer = await call;
  } catch {
    throw new ApiError(0, 'the service is unreachable');
  }
  if (answer.data !== undefined) return answer.data.result;
  const message =
    typeof answer.error === 'object' && answer.error !== null && 'error' in answer.error
      ? String(answer.error.error)
      : `the service answered ${answer.response.status}`;
  throw new ApiError(answer.response.status, message);
}
