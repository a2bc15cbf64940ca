import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { VethNamespace } from './netns.ts';

export interface SimulatorChild {
  /** Every line the command printed so far. */
  lines: string[];
  /** Ctrl-C, then its exit code. */
  interrupt: () => Promise<number | null>;
}

/**
 * `npm run sim`'s script in a child process inside `ns` (its own sockets, e.g. a raw socket that must not
 * see the service's packets), once it says it is holding; fails with its output if it ends before.
 */
export async function simulatorInNamespace(ns: VethNamespace, args: string[]): Promise<SimulatorChild> {
  const sim = spawn('ip', ns.exec(process.execPath, '--import', 'tsx', 'scripts/sim.ts', ...args), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const holding = new Promise<void>((resolve) => {
    createInterface({ input: sim.stdout }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith('holding')) resolve();
    });
  });
  const exited = once(sim, 'exit') as Promise<[number | null]>;
  await Promise.race([holding, exited.then(() => assert.fail(`the simulator ended: ${lines.join(' | ')}`))]);
  return {
    lines,
    interrupt: async () => {
      sim.kill('SIGINT');
      const [code] = await exited;
      return code;
    },
  };
}
