import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WAIT_MS } from '../../helpers/until.ts';

const run = promisify(execFile);
const SOURCE = new URL('../../peers/usrsctp/peer.c', import.meta.url).pathname;

/** Compiles the usrsctp peer (test/peers/usrsctp/peer.c) once per source version into a cache directory. */
export async function buildPeer(): Promise<string> {
  const source = await readFile(SOURCE);
  const digest = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'pmn-usrsctp-peer');
  const binary = join(dir, `peer-${digest}`);
  if (existsSync(binary)) return binary;
  await mkdir(dir, { recursive: true });
  const building = `${binary}.${process.pid}`;
  await run('gcc', ['-O2', '-Wall', '-o', building, SOURCE, '-lusrsctp', '-lpthread']);
  await rename(building, binary);
  return binary;
}

/** A UDP port free now (bound, read, released). */
export async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** A running peer: its stdout lines, and a way to wait for one. */
export class PeerProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;
  #waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];

  constructor(binary: string, args: string[], env: Record<string, string> = {}) {
    this.#child = spawn(binary, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let partial = '';
    this.#child.stdout?.setEncoding('utf8').on('data', (data: string) => {
      const parts = (partial + data).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        this.lines.push(line);
        this.#waiters = this.#waiters.filter((w) => {
          if (!w.pattern.test(line)) return true;
          w.resolve(line);
          return false;
        });
      }
    });
    this.exited = new Promise((resolve) => this.#child.on('exit', (code) => resolve(code)));
  }

  /** Resolves with the first line (already printed or to come) matching `pattern`; rejects after `ms`. */
  waitFor(pattern: RegExp, ms = WAIT_MS): Promise<string> {
    const seen = this.lines.find((l) => pattern.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`peer did not print ${pattern} within ${ms} ms: ${this.lines.join(' | ')}`)),
        ms,
      );
      this.#waiters.push({
        pattern,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
    this.#child.kill(signal);
    return this.exited;
  }
}
