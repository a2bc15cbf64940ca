import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSimulator } from '../../src/simulator/cli.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { ScriptedAmf } from './scripted-amf.ts';
import { attachNas } from './scripted-ue-network.ts';

const K = '465b5ce8b199b49faa5f0a2ee238a6bc';
const OPC = 'e8ed289deba952e4283b54e88e6183ca';
const subscribers = Object.fromEntries(
  ['001010000000001', '001010000000002', '001010000000003'].map((imsi) => [
    imsi,
    { k: Buffer.from(K, 'hex'), opc: Buffer.from(OPC, 'hex'), sqn: Buffer.alloc(6) },
  ]),
);

async function run(args: string[]): Promise<{ status: number; lines: string[]; amf: ScriptedAmf }> {
  const server = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0 });
  try {
    const amf = await ScriptedAmf.listen(server.transport);
    attachNas(amf, subscribers);
    const lines: string[] = [];
    const status = await runSimulator(
      ['ue', '--udp-port', String(server.link.port), ...args],
      (line) => lines.push(line),
      new Promise(() => undefined),
    );
    return { status, lines, amf };
  } finally {
    await server.transport.close();
  }
}

describe('the simulator command for UEs (npm run sim -- ue)', () => {
  it('registers UEs behind two gNBs, idles them, brings them back, deregisters, exits 0', async () => {
    const { status, lines, amf } = await run([
      ...['--gnbs', '2', '--ues', '3', '--key', K, '--opc', OPC],
      ...['--idle', '--service-request', '--then', 'deregister'],
    ]);
    const all = lines.join('\n');
    assert.equal(status, 0, all);
    assert.ok(lines.includes('imsi-001010000000001 -> registrationRequest'), all);
    assert.ok(lines.includes('imsi-001010000000002 <- securityModeCommand'), all);
    assert.ok(
      lines.some((line) =>
        /^imsi-001010000000003: registered via gnb-1, 5G-GUTI 001-01 region ca set 3f5 pointer 1 tmsi [0-9a-f]{8}, allowed NSSAI \[1\], T3512 3600 s, NEA2\/NIA2$/.test(
          line,
        ),
      ),
      all,
    );
    assert.ok(
      lines.some((line) => /^3 of 3 registered in \d+ ms \(\d+\/s\)$/.test(line)),
      all,
    );
    assert.ok(lines.includes('3 of 3 idle after UE Context Release Request'), all);
    assert.ok(lines.includes('3 of 3 connected again by service request'), all);
    assert.ok(lines.includes('3 of 3 deregistered'), all);
    assert.equal(amf.received.filter((r) => r.messageType === 'UEContextReleaseRequest').length, 3);
  });

  it('--strict: the scripted AMF sends UE-associated messages on stream 0; each is printed, counted, and fails the run (exit 1)', async () => {
    const { status, lines } = await run([
      '--ues',
      '1',
      '--key',
      K,
      '--opc',
      OPC,
      '--strict',
      '--then',
      'deregister',
    ]);
    const all = lines.join('\n');
    assert.equal(status, 1, all);
    assert.ok(
      lines.includes('gnb-1: DownlinkNASTransport on stream 0: ue-associated-on-stream-0 (TS 38.412 7)'),
      all,
    );
    assert.ok(
      lines.some((line) =>
        /^strict: [1-9]\d* stream id violations, 0 standalone resource setups refused$/.test(line),
      ),
      all,
    );
  });

  it('a wrong key is rejected (exit 1); bad options print the usage (exit 2)', async () => {
    const wrong = await run(['--key', '00'.repeat(16), '--opc', OPC, '--quiet', '--then', 'switch-off']);
    assert.equal(wrong.status, 1);
    assert.ok(wrong.lines.includes('imsi-001010000000001: authentication rejected'), wrong.lines.join('\n'));
    assert.ok(
      wrong.lines.includes('0 of 1 registered') || wrong.lines.some((l) => l.startsWith('0 of 1 registered')),
    );
    const bad = await run(['--key', K, '--opc', OPC, '--suci', 'A']);
    assert.equal(bad.status, 2);
    assert.ok(bad.lines.includes('--suci A needs --hn-key'));
    assert.ok(bad.lines.some((line) => line.startsWith('usage: npm run sim -- ue')));
  });

  it('--scenario failover needs several --amf; --ping needs --tun-netns; --strict takes one --amf (exit 2)', async () => {
    const say = (lines: string[]) => (line: string) => lines.push(line);
    const cases: [string[], string][] = [
      [['--scenario', 'failover'], '--scenario failover needs several --amf'],
      [
        ['--scenario', 'other', '--amf', '127.0.0.1:1', '--amf', '127.0.0.2:1'],
        '--scenario must be failover, got other',
      ],
      [['--ping', '10.99.0.1'], '--ping needs an IP address and --tun-netns'],
      [
        ['--strict', '--amf', '127.0.0.1:1', '--amf', '127.0.0.2:1'],
        '--strict and the location options take one --amf',
      ],
    ];
    for (const [args, message] of cases) {
      const lines: string[] = [];
      const status = await runSimulator(
        ['ue', '--key', K, '--opc', OPC, ...args],
        say(lines),
        Promise.resolve(),
      );
      assert.equal(status, 2, lines.join('\n'));
      assert.ok(lines.includes(message), lines.join('\n'));
    }
  });
});
