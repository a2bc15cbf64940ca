import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Where a spawned service listens, read from its log: its API's URL and the N2 UDP port, once it says
 * its database is ready. The log is read to its end (a full pipe would block the service); a line that
 * is not JSON goes to `other` (the V8 flags some benchmarks add print there).
 */
export function whereItListens(
  child: ChildProcess,
  other: (line: string) => void = () => {},
): Promise<{ url: string; udpPort: number }> {
  let url: string | undefined;
  let udpPort: number | undefined;
  return new Promise((resolve, reject) => {
    if (child.stdout === null) throw new Error('the service was spawned without its stdout piped');
    createInterface({ input: child.stdout }).on('line', (line) => {
      let message = '';
      try {
        message = (JSON.parse(line) as { msg?: string }).msg ?? '';
      } catch {
        other(line);
        return;
      }
      url ??= /^PMN Core listening on (\S+)$/.exec(message)?.[1];
      const port = /^N2 \(NGAP\) listening on .*, UDP port (\d+)$/.exec(message)?.[1];
      if (port !== undefined) udpPort = Number(port);
      if (!message.startsWith('database ready at')) return;
      if (url === undefined || udpPort === undefined)
        reject(new Error('the service did not say where it listens'));
      else resolve({ url, udpPort });
    });
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
  });
}
