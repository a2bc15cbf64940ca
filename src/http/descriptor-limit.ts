import { readFileSync } from 'node:fs';

/**
 * The process's limit on open file descriptors (the soft RLIMIT_NOFILE, which Node raises to the hard
 * limit at start), or undefined where /proc does not say (not Linux).
 */
export function openFileLimit(limits = '/proc/self/limits'): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync(limits, 'utf8'));
    return line?.[1] ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Connections the API may hold: at most `maxConnections`, and at most three quarters of the descriptor
 * limit, so the database, the logs, the radios' N2 links and the user plane keep the last quarter and an
 * accept never fails for want of a descriptor (a failed accept would shut every client out alike).
 */
export function connectionCapacity(maxConnections: number, descriptors: number | undefined): number {
  if (descriptors === undefined) return maxConnections;
  return Math.max(1, Math.min(maxConnections, Math.floor((descriptors * 3) / 4)));
}
