import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { VethNamespace } from './netns.ts';

export interface SimulatorChild {
  /** Every line the command printed so far. */
  lines: string[];
  /** Ctrl-C, then its exit code. */
  interrupt: () => Promise<number | null>;
}

interface Started {
  sim: ChildProcess;
  lines: string[];
  exited: Promise<[number | null]>;
}

/** `npm run sim`'s script in a child process inside `ns`, its output lines collected as they come. */
function startInNamespace(ns: VethNamespace, args: string[], onLine: (line: string) => void): Started {
  const sim = spawn('ip', ns.exec(process.execPath, '--import', 'tsx', 'scripts/sim.ts', ...args), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  createInterface({ input: sim.stdout }).on('line', (line) => {
    lines.push(line);
    onLine(line);
  });
  // 'close', not 'exit': every line of its output has been read by then.
  return { sim, lines, exited: once(sim, 'close') as Promise<[number | null]> };
}

/**
 * `npm run sim`'s script in a child process inside `ns` (its own sockets, e.g. a raw socket that must not
 * see the service's packets), once it says it is holding; fails with its output if it ends before.
 */
export async function simulatorInNamespace(ns: VethNamespace, args: string[]): Promise<SimulatorChild> {
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const { sim, lines, exited } = startInNamespace(ns, args, (line) => {
    if (line.startsWith('holding')) holding();
  });
  await Promise.race([held, exited.then(() => assert.fail(`the simulator ended: ${lines.join(' | ')}`))]);
  return {
    lines,
    interrupt: async () => {
      sim.kill('SIGINT');
      const [code] = await exited;
      return code;
    },
  };
}

/** The same, for a command that ends by itself (e.g. `--then deregister`): its exit code and every line. */
export async function simulatorRunInNamespace(
  ns: VethNamespace,
  args: string[],
): Promise<{ code: number | null; lines: string[] }> {
  const { lines, exited } = startInNamespace(ns, args, () => undefined);
  const [code] = await exited;
  return { code, lines };
}
