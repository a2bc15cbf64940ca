import type { FastifyRequest } from 'fastify';

/** The longest piece of a client's input an error message repeats, in characters. */
const MAX_ECHO = 100;

/** Values of one request looked at, at most (a 1 MiB body may hold far more; this is an error path). */
const MAX_VALUES = 10_000;

const shorten = (text: string): string => (text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text);

// A run this long without a space or quote is no wording of ours: it can only be input.
const LONG_RUN = new RegExp(`[^\\s"']{${MAX_ECHO + 1},}`, 'g');

/**
 * Error messages name the value at fault, often by repeating it (`user <e-mail> not found`, `unknown
 * field "<name>"`), and a client may send values of any length. Every piece of `inputs` longer than
 * MAX_ECHO that the message repeats is cut to MAX_ECHO characters and "…", and so is any longer run
 * without spaces or quotes (an input repeated decoded or lower-cased).
 */
export function truncateEchoes(message: string, inputs: Iterable<string> = []): string {
  let text = message;
  const long = [...inputs].filter((input) => input.length > MAX_ECHO).sort((a, b) => b.length - a.length);
  for (const input of long) if (text.includes(input)) text = text.split(input).join(shorten(input));
  return text.replace(LONG_RUN, shorten);
}

/** What a message about `request` may repeat: its path, path parameters, query values, body keys and strings. */
export function requestInputs(request: FastifyRequest): string[] {
  const found: string[] = [request.url.split('?')[0] ?? ''];
  const pending: unknown[] = [request.params, request.query, request.body];
  for (let visited = 0; pending.length > 0 && visited < MAX_VALUES; visited++) {
    const value = pending.pop();
    if (typeof value === 'string') found.push(value);
    else if (Array.isArray(value)) pending.push(...(value as unknown[]).slice(0, MAX_VALUES));
    else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
      for (const [key, inner] of Object.entries(value).slice(0, MAX_VALUES)) {
        found.push(key);
        pending.push(inner);
      }
    }
  }
  return found;
}
