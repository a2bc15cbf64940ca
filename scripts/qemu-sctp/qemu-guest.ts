/**
 * Boots a Debian cloud kernel (it has SCTP) under qemu-system-x86_64 software emulation and runs one
 * JavaScript program in it with this host's node and the native addon: the kernel-SCTP side of the
 * system tests in test/system/sctp-kernel and test/system/sctp-raw. See docs/sctp-native.md.
 *
 * The program is bundled with esbuild (TypeScript is too slow to load under emulation), packed with
 * its arguments and the addon into a small cpio appended to the cached base initramfs
 * (build-guest.sh), and its console lines stream back through the serial port. A tap device, when
 * asked for, links host and guest.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HERE = join(ROOT, 'scripts/qemu-sctp');
const CACHE = join(ROOT, '.cache/qemu-sctp');
const GUEST = join(CACHE, 'guest');
const ADDON = join(ROOT, 'build/Release/pmn_native.node');

export interface TapLink {
  name: string;
  /** Host and guest addresses on the tap, with prefix length: '10.213.7.1/24'. */
  host4: string;
  guest4: string;
  host6: string;
  guest6: string;
}

export interface GuestOptions {
  /** The guest program (TypeScript), bundled for the guest. It reads its arguments with `guestArguments()`. */
  entry: string;
  args: unknown;
  tap?: TapLink;
  /** Kills qemu after this long. */
  timeoutMs: number;
  /** Runs once the tap exists, before qemu starts (bind to the host's tap address, start a capture). */
  beforeBoot?: () => Promise<void>;
  /**
   * Packages with native code the program imports (e.g. better-sqlite3 for the service's database) and
   * those they load at run time: left out of the bundle and copied from node_modules into the guest.
   */
  nativePackages?: readonly string[];
  /** The guest's memory (default 512 MiB). */
  memoryMb?: number;
}

export interface GuestResult {
  /** The program's exit status, or null when the guest never reported one (crash, timeout). */
  exitCode: number | null;
  lines: string[];
}

export interface Guest {
  /** Resolves with the first console line matching `pattern` (rejects if the guest ends first). */
  waitFor(pattern: RegExp): Promise<string>;
  readonly finished: Promise<GuestResult>;
}

/** Why guests cannot run here, or undefined when they can (qemu, busybox, the addon, root for taps). */
export function guestUnavailable(needTap: boolean): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return 'needs Linux on x86-64';
  for (const tool of ['/usr/bin/qemu-system-x86_64', '/bin/busybox']) {
    if (!existsSync(tool)) return `${tool} is missing (.ci/run installs it)`;
  }
  if (!existsSync(ADDON)) return 'the native addon is not built (npm ci)';
  if (needTap && (process.getuid?.() !== 0 || !existsSync('/dev/net/tun'))) {
    return 'a tap device needs root and /dev/net/tun';
  }
  return undefined;
}

/** Fetches the kernel and builds the shared guest parts once (cached; about 20 s the first time). */
export async function prepareGuest(): Promise<void> {
  await run(join(HERE, 'build-guest.sh'), [CACHE], { maxBuffer: 16 << 20 });
}

/** A tap link whose name and subnet depend on `index` and the process id, so parallel runs differ. */
export function tapLink(index: number): TapLink {
  const n = (process.pid * 4 + index) % 250;
  return {
    name: `pmnq${process.pid % 100000}x${index}`,
    host4: `10.213.${n}.1/24`,
    guest4: `10.213.${n}.2/24`,
    host6: `fd00:213:${n.toString(16)}::1/64`,
    guest6: `fd00:213:${n.toString(16)}::2/64`,
  };
}

export function addressOf(cidr: string): string {
  return cidr.slice(0, cidr.indexOf('/'));
}

async function bundle(entry: string, out: string, external: readonly string[]): Promise<void> {
  await run(join(ROOT, 'node_modules/.bin/esbuild'), [
    entry,
    '--bundle',
    '--platform=node',
    '--format=esm',
    '--target=node20',
    '--log-level=warning',
    ...external.map((name) => `--external:${name}`),
    // Bundled CommonJS packages call `require` for Node's built-in modules (as scripts/build.mjs says).
    "--banner:js=import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    `--outfile=${out}`,
  ]);
}

async function initrd(work: string, options: GuestOptions): Promise<string> {
  const tree = join(work, 'tree');
  const pmn = join(tree, 'opt/pmn');
  await mkdir(pmn, { recursive: true });
  const external = options.nativePackages ?? [];
  await bundle(options.entry, join(pmn, 'guest.mjs'), external);
  // /opt/pmn is the program's package root (src/package-root.ts): the addon where `npm ci` puts it.
  await writeFile(join(pmn, 'package.json'), '{"type":"module"}\n');
  await mkdir(join(pmn, 'build/Release'), { recursive: true });
  await copyFile(ADDON, join(pmn, 'build/Release/pmn_native.node'));
  for (const name of external) {
    await cp(join(ROOT, 'node_modules', name), join(pmn, 'node_modules', name), {
      recursive: true,
      // Only what loads at run time in this guest (x86-64, glibc): not a package's build sources and
      // objects, nor its binaries for other systems (the guest unpacks the initramfs into its memory).
      filter: (path) =>
        !/\/better-sqlite3\/(deps|src)(\/|$)|\/obj(\.target)?(\/|$)|\.a$|\/prebuilds\/(?!linux-x64)[^/]+$|\.musl\./.test(
          path,
        ),
    });
  }
  await writeFile(join(pmn, 'args.json'), JSON.stringify(options.args));
  const extra = join(work, 'extra.cpio.gz');
  await run('sh', [
    '-c',
    `cd "${tree}" && find . | /bin/busybox cpio -o -H newc 2>/dev/null | gzip -1 > "${extra}"`,
  ]);
  const file = join(work, 'initrd.cpio.gz');
  await writeFile(file, Buffer.concat([await readFile(join(GUEST, 'base.cpio.gz')), await readFile(extra)]));
  return file;
}

async function createTap(tap: TapLink): Promise<void> {
  await run('ip', ['tuntap', 'add', 'dev', tap.name, 'mode', 'tap']);
  await run('ip', ['addr', 'add', tap.host4, 'dev', tap.name]);
  await run('ip', ['-6', 'addr', 'add', tap.host6, 'dev', tap.name, 'nodad']);
  await run('ip', ['link', 'set', tap.name, 'up']);
}

async function deleteTap(tap: TapLink): Promise<void> {
  await run('ip', ['link', 'del', tap.name]).catch(() => undefined);
}

/** Boots the guest and runs the program; the tap (if any) exists until `finished` settles. */
export async function startGuest(options: GuestOptions): Promise<Guest> {
  const work = await mkdtemp(join(tmpdir(), 'pmn-qemu-'));
  const file = await initrd(work, options);
  const tap = options.tap;
  if (tap !== undefined) await createTap(tap);
  try {
    await options.beforeBoot?.();
  } catch (error) {
    if (tap !== undefined) await deleteTap(tap);
    await rm(work, { recursive: true, force: true });
    throw error;
  }
  const append = ['console=ttyS0', 'quiet', 'panic=-1'];
  const args = [
    '-display',
    'none',
    '-serial',
    'stdio',
    '-monitor',
    'none',
    '-m',
    String(options.memoryMb ?? 512),
    '-smp',
    '1',
    '-no-reboot',
    '-device',
    'isa-debug-exit,iobase=0xf4,iosize=0x04',
    '-kernel',
    join(GUEST, 'vmlinuz'),
    '-initrd',
    file,
    '-drive',
    `file=${join(GUEST, 'node.img')},format=raw,if=virtio,readonly=on`,
  ];
  if (tap === undefined) args.push('-nic', 'none');
  else {
    append.push(`pmn.ip=${tap.guest4}`, `pmn.ip6=${tap.guest6}`);
    // romfile= keeps SeaBIOS from loading the iPXE option ROM (a second of boot).
    args.push(
      '-netdev',
      `tap,id=n0,ifname=${tap.name},script=no,downscript=no`,
      '-device',
      'virtio-net-pci,netdev=n0,romfile=',
    );
  }
  args.push('-append', append.join(' '));
  const qemu = spawn('qemu-system-x86_64', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const { lines, onLine, waitFor, end } = watchLines();
  let partial = '';
  const onData = (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const parts = partial.split(/\r?\n/);
    partial = parts.pop() ?? '';
    for (const line of parts) onLine(line);
  };
  qemu.stdout.on('data', onData);
  qemu.stderr.on('data', onData);
  const timer = setTimeout(() => qemu.kill('SIGKILL'), options.timeoutMs);
  const finished = new Promise<GuestResult>((resolve) => {
    qemu.on('close', (status) => {
      clearTimeout(timer);
      if (partial !== '') lines.push(partial);
      end('guest');
      // isa-debug-exit: qemu exits with (rc << 1) | 1; anything else means the program never reported.
      const exitCode = status !== null && status % 2 === 1 ? status >> 1 : null;
      const cleanup = async () => {
        if (tap !== undefined) await deleteTap(tap);
        await rm(work, { recursive: true, force: true });
      };
      void cleanup().then(() => resolve({ exitCode, lines }));
    });
  });
  return { finished, waitFor };
}

/**
 * A program's output lines as they come (`onLine`), and `waitFor` on them: resolves with the first line
 * matching, or rejects once `end` says the program (`what`) ended before one did.
 */
export function watchLines(): {
  lines: string[];
  onLine: (line: string) => void;
  waitFor: Guest['waitFor'];
  end: (what: string) => void;
} {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  return {
    lines,
    onLine(line) {
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    },
    waitFor: (pattern) =>
      new Promise<string>((resolve, reject) => {
        const seen = lines.find((line) => pattern.test(line));
        if (seen !== undefined) resolve(seen);
        else waiters.push({ pattern, resolve, reject });
      }),
    end(what) {
      for (const waiter of waiters.splice(0)) {
        waiter.reject(new Error(`${what} ended before ${String(waiter.pattern)}:\n${lines.join('\n')}`));
      }
    },
  };
}

/** The JSON objects a guest printed as `PMN-RESULT {...}` lines. */
export function guestResults(lines: readonly string[]): unknown[] {
  return lines
    .filter((line) => line.startsWith('PMN-RESULT '))
    .map((line) => JSON.parse(line.slice(11)) as unknown);
}
