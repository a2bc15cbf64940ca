import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

import { watchLines, type Guest, type GuestResult } from '../../scripts/qemu-sctp/qemu-guest.ts';
import type { VethNamespace } from './netns.ts';

/**
 * A TypeScript program run by this node inside `ns` (its own sockets: e.g. a raw socket that must not
 * see the service's packets), with `args` as the JSON of its argv[2]: the namespace's counterpart of a
 * qemu guest (scripts/qemu-sctp/qemu-guest.ts), with the same line protocol (PMN-STEP, PMN-RESULT) and
 * interface. Killed after `timeoutMs`.
 */
export function startProgramInNamespace(
  ns: VethNamespace,
  entry: string,
  args: unknown,
  timeoutMs: number,
): Guest {
  const child = spawn('ip', ns.exec(process.execPath, '--import', 'tsx', entry, JSON.stringify(args)), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { lines, onLine, waitFor, end } = watchLines();
  createInterface({ input: child.stdout }).on('line', onLine);
  createInterface({ input: child.stderr }).on('line', onLine);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  // 'close', not 'exit': every line of its output has been read by then.
  const finished = new Promise<GuestResult>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      end('the program');
      resolve({ exitCode: code, lines });
    });
  });
  return { finished, waitFor };
}
