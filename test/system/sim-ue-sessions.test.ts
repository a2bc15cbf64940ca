/**
 * `npm run sim -- ue --session ... --tun-netns ...` against PMN Core (AMF, SMF and UPF as main.ts wires
 * them, udp transport): two simulated UEs register, establish an IPv4v6 session each (the IPv6 pool set
 * through the API), and the command brings each session's TUN device up in the UE's namespace; busybox
 * ping goes UE -> gNB -> GTP-U -> UPF -> N6 -> the data-network namespace and back while it holds; when
 * it stops, the TUN devices are gone. Root.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createN2, DEFAULT_N2_SETTINGS } from '../../src/core/n2.wiring.ts';
import { runSimulator } from '../../src/simulator/cli.ts';
import { K, OPC } from '../e2e/registration-service.ts';
import { placeN6, tunExists } from '../helpers/netns.ts';
import { createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';
import {
  DN,
  GNB_N3,
  inNamespace,
  N3,
  run,
  sessionTrafficUnavailable,
  UE_POOL,
} from './session-traffic-harness.ts';

const skip = sessionTrafficUnavailable();
const id = process.pid % 100000;
const IMSIS = ['001010000009101', '001010000009102'];

describe('npm run sim -- ue with PDU sessions on TUN devices', { skip }, () => {
  let t: TestApp;
  let token: string;
  let n2: ReturnType<typeof createN2>;
  const dnNamespace = `pmnsd${id}`;
  const uePrefix = `pmnsu${id}x`;
  const ueNamespaces = [1, 2].map((i) => `${uePrefix}${i}`);
  const n6 = `pmnsn${id}`;
  const lines: string[] = [];
  let stop: () => void = () => undefined;
  let exit: Promise<number>;

  before(async () => {
    for (const ns of [dnNamespace, ...ueNamespaces]) await run('ip', ['netns', 'add', ns]);
    for (const ns of ueNamespaces) await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    t = await createTestApp();
    token = await initialize(t);
    n2 = createN2(
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
      },
    );
    await n2.start();
    await placeN6(n6, dnNamespace, { ipv4: DN, uePool: UE_POOL });
    const profile = await t.request({
      method: 'PUT',
      url: '/api/v1/profiles/default',
      token,
      payload: {
        'ue-ip-pool': UE_POOL,
        'ue-ipv6-pool': '2001:db8:45::/48',
        dns: '8.8.8.8',
        mtu: 1400,
        'bitrate-uplink': '1 Gbps',
        'bitrate-downlink': '1 Gbps',
        var5qi: 9,
        'priority-level': 90,
      },
    });
    assert.equal(profile.statusCode, 200, profile.body);
    for (const imsi of IMSIS) {
      const response = await t.request({
        method: 'POST',
        url: '/api/v1/subscribers',
        token,
        payload: { imsi, key: K, opc: OPC, sequenceNumber: '000000000000', profile_name: 'default' },
      });
      assert.equal(response.statusCode, 201, response.body);
    }
    const endpoint = n2.endpoint();
    assert.ok(endpoint?.local[0] !== undefined && endpoint.udpPort !== undefined);
    exit = runSimulator(
      [
        'ue',
        ...['--amf', `127.0.0.1:${endpoint.local[0].port}`, '--udp-port', String(endpoint.udpPort)],
        ...['--ues', '2', '--imsi', IMSIS[0] ?? '', '--key', K, '--opc', OPC, '--quiet'],
        ...['--session', 'IPv4v6', '--dnn', 'internet', '--n3', GNB_N3, '--tun-netns', uePrefix],
      ],
      (line) => lines.push(line),
      new Promise<void>((resolve) => (stop = resolve)),
    );
    // Polled: registrations and sessions take their time on a loaded machine; an early exit fails at once.
    let exited: number | undefined;
    void exit.then((status) => (exited = status));
    for (const end = Date.now() + 30_000; ;) {
      if (lines.includes('holding; Ctrl-C deregisters nothing and shuts the associations down')) break;
      assert.ok(exited === undefined && Date.now() < end, `exit ${exited}: ${lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  after(async () => {
    stop();
    await exit?.catch(() => undefined);
    await n2?.stop();
    await t?.close();
    for (const ns of [dnNamespace, ...ueNamespaces])
      await run('ip', ['netns', 'del', ns]).catch(() => undefined);
  });

  /** The name of the TUN device the command said it brought up for `imsi`. */
  const tunOf = (imsi: string): string | undefined =>
    lines
      .map((line) => new RegExp(`^imsi-${imsi}: TUN (\\S+) up in `).exec(line)?.[1])
      .find((name) => name !== undefined);

  it('establishes the sessions, says so, and holds with a TUN device per UE in its namespace', async () => {
    assert.ok(
      lines.some((line) => /^2 of 2 PDU sessions established in \d+ ms \(\d+\/s\)$/.test(line)),
      lines.join('\n'),
    );
    for (const [i, imsi] of IMSIS.entries()) {
      assert.ok(
        lines.some((line) =>
          new RegExp(`^imsi-${imsi}: PDU session 1 IPv4v6 10\\.45\\.0\\.\\d+ IPv6, DNN internet$`).test(line),
        ),
        lines.join('\n'),
      );
      const tun = tunOf(imsi);
      assert.ok(tun !== undefined, lines.join('\n'));
      assert.ok(lines.includes(`imsi-${imsi}: TUN ${tun} up in ${ueNamespaces[i] ?? ''}`), lines.join('\n'));
      assert.equal(await tunExists(ueNamespaces[i] ?? '', tun), true);
    }
  });

  it('carries traffic: busybox ping from each UE namespace reaches the data network', async () => {
    for (const ns of ueNamespaces) {
      const out = await inNamespace(ns, 'busybox', 'ping', '-c', '2', '-W', '2', DN);
      assert.match(out, /2 packets transmitted, 2 packets received/);
    }
    const response = await t.request({ method: 'GET', url: `/api/v1/subscribers/${IMSIS[0]}`, token });
    const sessions = response.json<{ result: { sessions: { ip_type: string; ipv6_prefix: string }[] } }>()
      .result.sessions;
    assert.deepEqual(
      sessions.map((s) => s.ip_type),
      ['IPv4v6'],
    );
    assert.match(sessions[0]?.ipv6_prefix ?? '', /^2001:db8:45:[0-9a-f:]*\/64$/);
  });

  it('stops on the signal (exit 0) and the TUN devices go with it', async () => {
    const tuns = IMSIS.map(tunOf);
    stop();
    assert.equal(await exit, 0, lines.join('\n'));
    for (const [i, tun] of tuns.entries())
      assert.equal(await tunExists(ueNamespaces[i] ?? '', tun ?? ''), false);
  });
});
