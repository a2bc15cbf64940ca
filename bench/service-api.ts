/** The management API of a service a benchmark started: a JSON call under a bearer token. */
export type ServiceCall = ((method: string, path: string, body?: unknown) => Promise<unknown>) & {
  /** The bearer token the calls carry (for clients of the benchmark's own, such as event streams). */
  readonly token: string;
};

/** Initialises the fresh service at `base` with an admin and answers calls signed in as that admin. */
export async function initialisedApi(base: string): Promise<ServiceCall> {
  let token = '';
  const send = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(token === '' ? {} : { authorization: `Bearer ${token}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (JSON.parse(text) as { result: unknown }).result;
  };
  const init = await send('POST', '/api/v1/init', { email: 'admin@example.com', password: 'admin-password' });
  token = (init as { token: string }).token;
  return Object.assign(send, { token });
}
