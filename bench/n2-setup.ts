// 1,000 gNBs complete NG Setup at once over the udp transport against the real service in a child
// process (issue 14 item 7: all within 10 s, service RSS under 300 MB), beside a bare baseline measured
// in the same run: the same gNBs against a bare NGAP responder (the same userland SCTP over UDP, one
// pre-encoded NG Setup Response, no core, no records) in its own child process. The service is what
// `npm start` runs: the production bundle (dist/main.js, rebuilt when stale) under the service's node
// flags (test/helpers/service-process.ts), on a fresh database; the bare responder runs under tsx.
// Run: npx tsx bench/n2-setup.ts [--gnbs N] (default 1000). `--seconds` is accepted and ignored (the
// suite runner passes it); the figure here is the time to bring N radios up, not a rate over a duration.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../src/network/ngap/ngap-codec.ts';
import { bits, plmnIdentity } from '../src/network/ngap/ngap-values.ts';
import { bringUp, createFleet } from '../src/simulator/gnb-fleet.ts';
import { NGAP_PPID } from '../src/network/transport/n2-transport.ts';
import { createUdpTransport } from '../src/network/transport/udp/udp-transport.ts';
import { spawnService } from '../test/helpers/service-process.ts';
import { whereItListens } from './service-log.ts';

const { values } = parseArgs({
  options: {
    gnbs: { type: 'string', default: '1000' },
    seconds: { type: 'string' },
    serve: { type: 'string' },
  },
});

const AMF = { address: '127.0.0.1', port: 38412 };

/** Child: the bare responder. */
async function serveBare(): Promise<void> {
  const { transport, link } = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0 });
  const answer = encodeNgapPdu({
    choice: 'successfulOutcome',
    value: {
      procedureCode: 21,
      name: 'NGSetup',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 1, name: 'AMFName', criticality: 'reject', value: 'bare' },
          {
            id: 96,
            name: 'ServedGUAMIList',
            criticality: 'reject',
            value: [
              {
                gUAMI: {
                  pLMNIdentity: plmnIdentity('001', '01'),
                  aMFRegionID: bits(1, 8),
                  aMFSetID: bits(1, 10),
                  aMFPointer: bits(0, 6),
                },
              },
            ],
          },
          { id: 86, name: 'RelativeAMFCapacity', criticality: 'ignore', value: 255 },
          {
            id: 80,
            name: 'PLMNSupportList',
            criticality: 'reject',
            value: [
              {
                pLMNIdentity: plmnIdentity('001', '01'),
                sliceSupportList: [{ sNSSAI: { sST: Uint8Array.of(1) } }],
              },
            ],
          },
        ],
      },
    },
  });
  let answered = 0;
  const listener = await transport.listen({ addresses: [AMF.address], port: AMF.port }, (association) => ({
    message: (message) => {
      // The bare responder still decodes each request, as any AMF must, but keeps and records nothing.
      const decoded = decodeNgapPdu(message.payload);
      if (decoded.ok && ngapMessageType(decoded.value) === 'NGSetupRequest') {
        association.send(0, NGAP_PPID, answer);
        answered++;
      }
    },
    event: () => undefined,
  }));
  process.stdout.write(`${JSON.stringify({ udpPort: link.port })}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'radios') process.stdout.write(`${JSON.stringify({ radios: answered })}\n`);
    if (line === 'stop') break;
  }
  await listener.close();
  await transport.close();
  process.stdin.destroy(); // the open pipe would keep the child alive
}

/** CPU seconds (utime + stime) and RSS now and at peak (VmHWM) of a process, from /proc. */
async function usage(pid: number): Promise<{ cpuSeconds: number; rssMb: number; peakRssMb: number }> {
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  const ticks = Number(stat[11]) + Number(stat[12]); // fields 14 and 15 of proc(5), after "pid (comm)"
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { cpuSeconds: ticks / 100, rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

interface Run {
  wallMs: number;
  accepted: number;
  p50Ms: number;
  p99Ms: number;
  serverCpuMsPerSetup: number;
  rssMb: number;
  peakRssMb: number;
  radios: number;
}

/** A server under test in a child process: the AMF's UDP encapsulation port and its radio count. */
interface Server {
  pid: number;
  udpPort: number;
  radios(): Promise<number>;
  stop(): Promise<void>;
}

/** The bare responder: this file under tsx with `--serve bare`, answering on stdin and stdout. */
async function startBare(): Promise<Server> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--max-old-space-size=640',
      '--max-semi-space-size=4',
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--serve',
      'bare',
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, number>> => {
    const line = await lines.next();
    if (line.done === true) throw new Error('the bare responder ended early');
    return JSON.parse(line.value) as Record<string, number>;
  };
  const { udpPort } = await next();
  return {
    pid: child.pid!,
    udpPort: udpPort!,
    async radios() {
      child.stdin!.write('radios\n');
      return (await next()).radios ?? NaN;
    },
    async stop() {
      child.stdin!.write('stop\n');
      await once(child, 'exit');
    },
  };
}

/**
 * The service as operators run it (spawnService: dist/main.js, the service's node flags) on a fresh
 * database, N2 on udp at 127.0.0.1:38412 with an ephemeral UDP port read from its start-up log.
 */
async function startService(): Promise<Server> {
  const dir = await mkdtemp(join(tmpdir(), 'pmn-n2-bench-'));
  const child = spawnService([
    '--listen',
    '127.0.0.1:0',
    '--db',
    join(dir, 'pmn.db'),
    '--n2-transport',
    'udp',
    '--n2-addresses',
    AMF.address,
    '--n2-port',
    String(AMF.port),
    '--n2-udp-port',
    '0',
  ]);
  child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const { url, udpPort } = await whereItListens(child);
  const base = url;
  const init = await fetch(`${base}/api/v1/init`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin-password' }),
  });
  if (init.status !== 201) throw new Error(`init failed: ${await init.text()}`);
  const { token } = ((await init.json()) as { result: { token: string } }).result;
  return {
    pid: child.pid!,
    udpPort,
    async radios() {
      const response = await fetch(`${base}/api/v1/ran/radios`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return ((await response.json()) as { result: { total_count: number } }).result.total_count;
    },
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function measure(kind: 'service' | 'bare', count: number): Promise<Run> {
  const server = kind === 'service' ? await startService() : await startBare();
  const ran = await createUdpTransport({
    addresses: ['127.0.0.1'],
    udpPort: 0,
    peerUdpPort: server.udpPort,
  });
  try {
    const gnbs = createFleet({
      template: {
        plmn: { mcc: '001', mnc: '01' },
        node: { kind: 'gNB', value: 1, bitLength: 22 },
        name: 'gnb',
        supportedTas: [{ tac: 1, plmns: [{ plmn: { mcc: '001', mnc: '01' }, slices: [{ sst: 1 }] }] }],
      },
      count,
      transport: ran.transport,
      amf: [AMF],
      responseTimeoutMs: 30_000,
    });
    const before = await usage(server.pid);
    const start = performance.now();
    const latencies: number[] = [];
    const results = await Promise.all(
      gnbs.map(async (gnb) => {
        const result = await bringUp(gnb);
        latencies.push(performance.now() - start);
        return result;
      }),
    );
    const wallMs = performance.now() - start;
    const after = await usage(server.pid);
    const radios = await server.radios();
    latencies.sort((a, b) => a - b);
    const failures = results.filter((r) => r.outcome !== 'accepted');
    if (failures.length > 0)
      process.stderr.write(
        `${kind}: ${failures.length} not accepted, first: ${JSON.stringify(failures[0])}\n`,
      );
    await Promise.all(gnbs.map((gnb) => gnb.abort()));
    return {
      wallMs,
      accepted: results.length - failures.length,
      p50Ms: latencies[Math.floor(latencies.length / 2)] ?? NaN,
      p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? NaN,
      serverCpuMsPerSetup: ((after.cpuSeconds - before.cpuSeconds) * 1000) / count,
      rssMb: after.rssMb,
      peakRssMb: after.peakRssMb,
      radios,
    };
  } finally {
    await ran.transport.close();
    await server.stop();
  }
}

if (values.serve === 'bare') {
  await serveBare();
} else {
  const count = Number(values.gnbs);
  if (!Number.isInteger(count) || count < 1) throw new RangeError('--gnbs must be a positive integer');
  const bare = await measure('bare', count);
  const service = await measure('service', count);
  const row = (name: string, r: Run): string =>
    `${name.padEnd(8)} ${`${r.accepted}/${count}`.padStart(9)} ${(r.wallMs / 1000).toFixed(2).padStart(7)} s ` +
    `${r.p50Ms.toFixed(0).padStart(6)} ms ${r.p99Ms.toFixed(0).padStart(6)} ms ` +
    `${r.serverCpuMsPerSetup.toFixed(2).padStart(8)} ms ${r.rssMb.toFixed(0).padStart(6)} MB ${r.peakRssMb.toFixed(0).padStart(6)} MB ${String(r.radios).padStart(6)}`;
  process.stdout.write(
    [
      `N2: ${count} gNBs connect and complete NG Setup at once over udp (loopback); server in a child process`,
      'server   accepted     all done   p50       p99       CPU/setup    RSS      peak RSS  radios',
      row('bare', bare),
      row('service', service),
      `goals: all within 10 s (${service.wallMs <= 10_000 ? 'met' : 'MISSED'}), service RSS under 300 MB (${service.peakRssMb < 300 ? 'met' : 'MISSED'})`,
    ].join('\n') + '\n',
  );
}
