/**
 * What the session-traffic system tests share: PMN Core's UPF (createUpf on the test service's records
 * pipeline, its N6 TUN moved into a "data network" namespace whose kernel answers), a simulated gNB's
 * user plane on another loopback address, and UE namespaces with the TUN devices it creates. Names and
 * addresses depend on the process id, so files run at the same time never collide. Needs root.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { createN2, DEFAULT_N2_SETTINGS } from '../../src/core/n2.wiring.ts';
import { createGnbUserPlane, type GnbUserPlane } from '../../src/simulator/user-plane/gnb-user-plane.ts';
import { loadGnbUserPlaneAddon } from '../../src/simulator/user-plane/gnb-user-plane-addon.ts';
import { loadUpfAddon } from '../../src/network/upf/upf-addon.ts';
import { createUpf, type Upf } from '../../src/network/upf/upf.ts';
import { namespacesUnavailable, placeN6 } from '../helpers/netns.ts';
import { createTestApp, initialize, manualClock, result, type TestApp } from '../helpers/test-app.ts';
import { until } from '../helpers/until.ts';

export const run = promisify(execFile);

/** Why these tests cannot run here, or undefined. */
export function sessionTrafficUnavailable(): string | undefined {
  const upf = loadUpfAddon();
  const gnb = loadGnbUserPlaneAddon();
  return namespacesUnavailable() ?? (!upf.ok ? upf.error.message : !gnb.ok ? gnb.error.message : undefined);
}

const id = process.pid % 100000;
const x = 50 + (process.pid % 150);
const y = Math.floor(process.pid / 150) % 250;
export const N3 = `127.${x}.${y}.1`;
export const GNB_N3 = `127.${x}.${y}.2`;
export const DN = '10.99.0.1';
export const UE_POOL = '10.45.0.0/16';

/**
 * The test app's N2 over UDP on loopback with the UPF at N3 and its N6 TUN `n6`, the data network at DN
 * in `dnNamespace`: what the in-process end-to-end tests with the simulator's user plane run against.
 */
export async function startN2WithUpf(
  t: TestApp,
  clock: ReturnType<typeof manualClock>,
  n6: string,
  dnNamespace: string,
): Promise<ReturnType<typeof createN2>> {
  const n2 = createN2(
    t.core,
    { ...DEFAULT_N2_SETTINGS, transport: 'udp', addresses: ['127.0.0.1'], port: 0, udpPort: 0 },
    {
      upf: {
        settings: {
          n3Address: N3,
          n3Port: 2152,
          tunName: n6,
          maxSessions: 16,
          maxFlows: 4096,
          errorIndicationsPerSecond: 20,
        },
      },
      clock,
    },
  );
  await n2.start();
  await placeN6(n6, dnNamespace, { ipv4: DN, uePool: UE_POOL });
  return n2;
}

/** `ip netns exec <namespace> <command...>`, its stdout. */
export async function inNamespace(namespace: string, ...command: string[]): Promise<string> {
  const { stdout } = await run('ip', ['netns', 'exec', namespace, ...command], { maxBuffer: 1 << 20 });
  return stdout;
}

/** A Node script run inside a namespace; resolves with its stdout parsed as JSON. */
export async function nodeIn<T>(namespace: string, script: string): Promise<T> {
  return JSON.parse(await inNamespace(namespace, process.execPath, '-e', script)) as T;
}

/** Starts a long-lived Node script in a namespace; resolves once it printed its first line. */
export function serveIn(
  namespace: string,
  script: string,
): Promise<{ stop(): void; output: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', namespace, process.execPath, '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const output = new Promise<string>((done) => child.on('close', () => done(out)));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const first = out === '';
      out += chunk;
      if (first) resolve({ stop: () => child.kill(), output });
    });
    child.on('error', reject);
  });
}

/** Waits until `done` holds of what `read` returns (the forwarders work on threads of their own). */
export async function settle<T>(read: () => T, done: (value: T) => boolean, what = ''): Promise<T> {
  const { value } = await until(
    what || 'the forwarders',
    () => {
      const value = read();
      return done(value) && { value };
    },
    () => JSON.stringify(read()),
  );
  return value;
}

export interface Core {
  t: TestApp;
  token: string;
  upf: Upf;
  gnb: GnbUserPlane;
  clock: ReturnType<typeof manualClock>;
  dnNamespace: string;
  /** A fresh UE namespace (removed by `close`). */
  ueNamespace(): Promise<string>;
  close(): Promise<void>;
}

/** The test service, its UPF with N6 in the data-network namespace, and a simulated gNB's user plane. */
export async function startCore(tag: string): Promise<Core> {
  const clock = manualClock(Date.now());
  const dnNamespace = `pmn${tag}d${id}`;
  const tunName = `pmn${tag}n${id}`;
  const namespaces = [dnNamespace];
  await run('ip', ['netns', 'add', dnNamespace]);
  const t = await createTestApp({ clock, timers: clock });
  const token = await initialize(t);
  const upf = createUpf({
    settings: {
      n3Address: N3,
      n3Port: 2152,
      tunName,
      maxSessions: 64,
      maxFlows: 4096,
      errorIndicationsPerSecond: 20,
    },
    records: t.records,
    clock,
    timers: clock,
  });
  upf.start();
  await placeN6(tunName, dnNamespace, { ipv4: DN, uePool: UE_POOL });
  const gnb = createGnbUserPlane({ n3Address: GNB_N3, errorIndicationsPerSecond: 20 });
  return {
    t,
    token,
    upf,
    gnb,
    clock,
    dnNamespace,
    async ueNamespace() {
      const name = `pmn${tag}u${namespaces.length}x${id}`;
      await run('ip', ['netns', 'add', name]);
      await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
      namespaces.push(name);
      return name;
    },
    async close() {
      gnb.close();
      await upf.stop();
      await t.close();
      for (const name of namespaces) await run('ip', ['netns', 'del', name]).catch(() => undefined);
    },
  };
}

export interface FlowReport {
  subscriber_id: string;
  source_ip: string;
  destination_ip: string;
  source_port: number;
  destination_port: number;
  protocol: number;
  packets: number;
  bytes: number;
  direction: string;
  action: string;
}

/** The subscriber's flow reports, read through the API. */
export async function flowReports(core: Core, imsi: string): Promise<FlowReport[]> {
  await core.t.records.flush();
  const response = await core.t.request({
    method: 'GET',
    url: `/api/v1/flow-reports?subscriber_id=${imsi}&per_page=100`,
    token: core.token,
  });
  assert.equal(response.statusCode, 200, response.body);
  return result<{ items: FlowReport[] }>(response).items;
}

/** The subscriber's usage, read through the API. */
export async function usage(
  core: Core,
  imsi: string,
): Promise<{ uplink_bytes: number; downlink_bytes: number; total_bytes: number } | undefined> {
  await core.t.records.flush();
  const response = await core.t.request({
    method: 'GET',
    url: `/api/v1/subscriber-usage?group_by=subscriber&subscriber=${imsi}`,
    token: core.token,
  });
  assert.equal(response.statusCode, 200, response.body);
  const rows =
    result<Record<string, { uplink_bytes: number; downlink_bytes: number; total_bytes: number }>[]>(response);
  return rows.map((row) => row[imsi]).find((v) => v !== undefined);
}
