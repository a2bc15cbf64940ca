import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS } from '../../src/node-flags.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
let built = false;

/**
 * Starts the service as `npm start` does: the production bundle (`dist/main.js`, rebuilt first when a
 * source is newer) under the service's node flags, so process tests check what operators run.
 */
export function spawnService(
  args: readonly string[],
  options: { cwd?: string; nodeFlags?: readonly string[]; env?: NodeJS.ProcessEnv } = {},
): ChildProcessWithoutNullStreams {
  if (!built) {
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
    built = true;
  }
  const flags = [...SERVICE_NODE_FLAGS, ...(options.nodeFlags ?? [])];
  return spawn(process.execPath, [...flags, `${root}dist/main.js`, ...args], {
    cwd: options.cwd ?? root,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}
