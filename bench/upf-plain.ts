/**
 * The user-plane benches' C helper (bench/upf-plain.c), compiled with cc into .bench/: a datagram
 * blaster, a sink, and the plain UDP<->TUN forwarder that bench/upf.ts and bench/session-traffic.ts
 * measure the core against (the same system calls, batching and TUN offloads as the UPF and the
 * simulated gNB's user plane, without their work).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/package-root.ts';
import { compileC } from '../test/helpers/compile-c.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Compiles the helper (once per run); returns its path. Throws when cc fails. */
export function buildPlainHelper(): string {
  const out = join(packageRoot(), '.bench', 'upf-plain');
  mkdirSync(join(packageRoot(), '.bench'), { recursive: true });
  // The forwarder shares the UPF's sockets and TUN offloads (native/upf), so it makes the same calls.
  return compileC(out, join(packageRoot(), 'bench', 'upf-plain.c'), {
    upf: ['n3-socket.c', 'tun-gso.c', 'tun-gro.c'],
  });
}

export interface HelperProcess {
  /** Resolves once a forwarder printed "ready" (its TUN and socket open), or after 2 s. */
  ready(): Promise<void>;
  /** SIGTERM; its packets (sent, received or forwarded) and its own CPU time. */
  stop(): Promise<{ packets: number; cpuUs: number }>;
}

/**
 * Runs the helper: `blast <to> <port> <hex> [from]`, `sink <ip> <port>` or `forward <tun> <ip> <peer>`,
 * inside a network namespace when given.
 */
export function startHelper(helper: string, mode: string[], namespace?: string): HelperProcess {
  const child: ChildProcess =
    namespace === undefined
      ? spawn(helper, mode, { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn('ip', ['netns', 'exec', namespace, helper, ...mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    ready: async () => {
      for (let i = 0; i < 200 && !out.includes('ready'); i++) await sleep(10);
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      const [packets, cpu] = (out.trim().split('\n').at(-1) ?? '0 0').split(' ').map(Number);
      return { packets: packets ?? 0, cpuUs: cpu ?? 0 };
    },
  };
}
