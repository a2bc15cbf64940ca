import type { TransportAddress } from '../network/transport/n2-transport.ts';

/** A mistake on the command line: said with the usage, exit status 2 (an empty message is --help: 0). */
export class UsageError extends Error {}

/** A decimal or 0x-hexadecimal integer in min..max. */
export function integer(text: string, what: string, min: number, max: number): number {
  const value = /^0x[0-9a-f]+$/i.test(text)
    ? Number.parseInt(text, 16)
    : /^\d+$/.test(text)
      ? Number(text)
      : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new UsageError(`${what} must be an integer in ${min}..${max}, got ${text}`);
  return value;
}

/** --amf addr:port or [v6]:port. */
export function amfAddress(text: string): TransportAddress {
  const match = /^\[([0-9a-fA-F:.]+)\]:(\d+)$/.exec(text) ?? /^([^:]+):(\d+)$/.exec(text);
  if (match === null) throw new UsageError(`--amf must be addr:port or [v6]:port, got ${text}`);
  return { address: match[1]!, port: integer(match[2]!, 'the AMF port', 1, 65535) };
}

/**
 * The command's plan from argv, or its exit status once the mistake (parseArgs throws TypeError for an
 * unknown or malformed option) and the usage are said.
 */
export function planOrUsage<Plan>(
  plan: (argv: readonly string[]) => Plan,
  argv: readonly string[],
  usage: string,
  say: (line: string) => void,
): { plan: Plan } | { status: number } {
  try {
    return { plan: plan(argv) };
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    if (error.message !== '') say(error.message);
    say(usage);
    return { status: error.message === '' ? 0 : 2 };
  }
}
