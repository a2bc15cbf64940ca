import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSimulator } from '../../src/simulator/cli.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { bits, plmnIdentity } from '../../src/network/ngap/ngap-values.ts';
import { ScriptedAmf, failure } from './scripted-amf.ts';

describe('the simulator command (npm run sim -- gnb)', () => {
  it('runs N gNBs over udp to an AMF, prints each PDU and outcome, and exits 0 when all are accepted', async () => {
    const server = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0 });
    try {
      const amf = await ScriptedAmf.listen(server.transport);
      const lines: string[] = [];
      const status = await runSimulator(
        [
          'gnb',
          '--udp-port',
          String(server.link.port),
          '--count',
          '2',
          '--gnb-id',
          '0x10',
          '--tac',
          '1',
          '--slice',
          '1:010203',
          '--error-indication',
          '--then',
          'shutdown',
        ],
        (line) => lines.push(line),
        new Promise(() => undefined),
      );
      assert.equal(status, 0, lines.join('\n'));
      assert.ok(lines.includes('gnb-1 -> NGSetupRequest'), lines.join('\n'));
      assert.ok(lines.includes('gnb-2 <- NGSetupResponse'), lines.join('\n'));
      assert.ok(
        lines.includes(
          'gnb-1 (001:01:000010): NG Setup accepted by AMF amf.scripted, capacity 200, ' +
            'GUAMI 001-01 region ca set 3f5 pointer 01, slices 001-01 [1:010203]',
        ),
        lines.join('\n'),
      );
      assert.ok(lines.some((line) => /^2 of 2 accepted in \d+ ms$/.test(line)));
      assert.ok(lines.includes('gnb-2: association ended: shutdown'));
      const requests = amf.received.filter((r) => r.messageType === 'NGSetupRequest');
      assert.equal(requests.length, 2);
      assert.equal(amf.received.filter((r) => r.messageType === 'ErrorIndication').length, 2);
    } finally {
      await server.transport.close();
    }
  });

  it('with --amf repeated, sets up an association and NG Setup with each AMF, says each outcome and the next try of a refused one', async () => {
    const first = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0 });
    const second = await createUdpTransport({ addresses: ['127.0.0.2'], udpPort: first.link.port });
    try {
      const accepting = await ScriptedAmf.listen(first.transport, '127.0.0.1');
      const refusing = await ScriptedAmf.listen(second.transport, '127.0.0.2');
      refusing.ngSetupAnswer = () => failure('NGSetup', { choice: 'misc', value: 'unspecified' });
      const lines: string[] = [];
      const status = await runSimulator(
        [
          'gnb',
          '--udp-port',
          String(first.link.port),
          '--amf',
          '127.0.0.1:38412',
          '--amf',
          '127.0.0.2:38412',
          '--then',
          'shutdown',
        ],
        (line) => lines.push(line),
        new Promise(() => undefined),
      );
      assert.equal(status, 1, lines.join('\n'));
      assert.ok(
        lines.includes(
          'gnb-1: AMF 1 (127.0.0.1:38412): NG Setup accepted by AMF amf.scripted, capacity 200, ' +
            'GUAMI 001-01 region ca set 3f5 pointer 01, slices 001-01 [1:010203]',
        ),
        lines.join('\n'),
      );
      assert.ok(
        lines.includes(
          'gnb-1: AMF 2 (127.0.0.2:38412): NG Setup refused: misc/unspecified; next try in 10000 ms',
        ),
        lines.join('\n'),
      );
      assert.ok(lines.some((line) => /^1 of 2 associations accepted in \d+ ms$/.test(line)));
      for (const amf of [accepting, refusing]) {
        const requests = amf.received.filter((r) => r.messageType === 'NGSetupRequest');
        assert.equal(requests.length, 1, 'one NG Setup each, the retry cancelled by the shutdown');
      }
    } finally {
      await first.transport.close();
      await second.transport.close();
    }
  });

  it(
    'says an AMF Status Indication with each unavailable GUAMI and its backup AMF',
    { timeout: 20_000 },
    async () => {
      const server = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0 });
      try {
        const amf = await ScriptedAmf.listen(server.transport);
        amf.listeners.add((received) => {
          if (received.messageType !== 'NGSetupRequest') return;
          // After the NG Setup Response, which the scripted AMF sends once its listeners have run.
          setImmediate(() =>
            amf.send(received.association, {
              choice: 'initiatingMessage',
              value: {
                procedureCode: 1,
                name: 'AMFStatusIndication',
                criticality: 'ignore',
                value: {
                  protocolIEs: [
                    {
                      id: 120,
                      name: 'UnavailableGUAMIList',
                      criticality: 'reject',
                      value: [
                        {
                          gUAMI: {
                            pLMNIdentity: plmnIdentity('001', '01'),
                            aMFRegionID: bits(0xca, 8),
                            aMFSetID: bits(0x3f5, 10),
                            aMFPointer: bits(1, 6),
                          },
                          backupAMFName: 'amf-b',
                        },
                      ],
                    },
                  ],
                },
              },
            }),
          );
        });
        const lines: string[] = [];
        let said: () => void = () => undefined;
        const indicated = new Promise<void>((resolve) => (said = resolve));
        const status = await runSimulator(
          ['gnb', '--udp-port', String(server.link.port), '--quiet', '--then', 'hold'],
          (line) => {
            lines.push(line);
            if (line.includes('AMF Status Indication')) said();
          },
          indicated,
        );
        assert.equal(status, 0, lines.join('\n'));
        assert.ok(
          lines.includes(
            'gnb-1: AMF Status Indication: unavailable 001-01 region ca set 3f5 pointer 01 (backup amf-b)',
          ),
          lines.join('\n'),
        );
      } finally {
        await server.transport.close();
      }
    },
  );

  it('says a refusal with its cause and exits 1; refuses bad options with the usage and exit 2', async () => {
    const server = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0 });
    try {
      const amf = await ScriptedAmf.listen(server.transport);
      amf.ngSetupAnswer = () => failure('NGSetup', { choice: 'misc', value: 'unknown-PLMN-or-SNPN' });
      const lines: string[] = [];
      const status = await runSimulator(
        [
          'gnb',
          '--udp-port',
          String(server.link.port),
          '--mcc',
          '999',
          '--mnc',
          '70',
          '--quiet',
          '--then',
          'abort',
        ],
        (line) => lines.push(line),
        new Promise(() => undefined),
      );
      assert.equal(status, 1);
      assert.ok(
        lines.includes(
          'gnb-1 (999:70:000001): NG Setup refused: misc/unknown-PLMN-or-SNPN, time to wait v10s',
        ),
        lines.join('\n'),
      );
      assert.ok(!lines.some((line) => line.includes('->')), 'quiet prints no PDUs');
    } finally {
      await server.transport.close();
    }
    for (const args of [
      ['gnb', '--id-bits', '21'],
      ['gnb', '--transport', 'sctp'],
      ['enb'],
      ['gnb', '--slice', '256'],
    ]) {
      const lines: string[] = [];
      assert.equal(
        await runSimulator(args, (line) => lines.push(line), Promise.resolve()),
        2,
        args.join(' '),
      );
      assert.ok(lines.some((line) => line.startsWith('usage: npm run sim -- gnb')));
    }
  });
});
