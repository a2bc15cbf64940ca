// PDU session establishments per second in the SMF (issue 17 item 5, control side): CPU per establishment
// (Request in, authorisation, address, TEID, UPF rule, Accept and setup transfer out, setup response
// read, downlink installed) through createSmf with in-memory ports, beside a bare baseline measured in
// the same run: encoding the same Accept and transfer and reading the same response transfer alone.
// Run: npx tsx bench/sessions.ts [--sessions N (20000)]
import { parseArgs } from 'node:util';
import { systemTimers } from '../src/clock.ts';
import { encodeNasMessage } from '../src/network/nas/index.ts';
import { readSetupResponseTransfer, setupRequestTransfer } from '../src/network/smf/n2-transfers.ts';
import { createSmf } from '../src/network/smf/smf.ts';
import { establishmentAccept } from '../src/network/smf/sm-messages.ts';
import { defaultSubscription, inMemorySmfPorts, setupResponseTransfer } from '../test/helpers/smf-ports.ts';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '20000' } } });
const count = Number(values.sessions);

const response = setupResponseTransfer(7);
// The SMF's ports in memory (test/helpers/smf-ports.ts), as its unit tests have them: the AMF port
// encodes each 5GSM message as the real AMF would.
const ports = inMemorySmfPorts(systemTimers, (imsi) => defaultSubscription(imsi, { pool: '10.0.0.0/8' }));
const smf = createSmf(ports.options);

const request = () => ({
  messageType: 'pduSessionEstablishmentRequest' as const,
  pduSessionId: 1,
  pti: 1,
  integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
  pduSessionType: 1,
});

async function measured(label: string, run: () => Promise<void>): Promise<number> {
  const start = process.cpuUsage();
  const wall = performance.now();
  await run();
  const cpu = process.cpuUsage(start);
  const us = (cpu.user + cpu.system) / count;
  const rate = count / ((performance.now() - wall) / 1000);
  process.stdout.write(`${label}: ${us.toFixed(1)} µs CPU per establishment, ${rate.toFixed(0)}/s\n`);
  return us;
}

const bare = await measured('bare (Accept + setup transfer encoded, response read)', async () => {
  for (let i = 0; i < count; i++) {
    encodeNasMessage(
      establishmentAccept({
        pduSessionId: 1,
        pti: 1,
        ipType: 'IPv4',
        typeCause: undefined,
        ipv4: '10.0.0.1',
        ambr: { uplinkBps: 1e9, downlinkBps: 1e9 },
        flow: { qfi: 1, fiveQi: 9, arp: 1 },
        sNssai: { sst: 1 },
        dnn: 'internet',
        pco: undefined,
      }),
    );
    setupRequestTransfer({
      ambr: { uplinkBps: 1e9, downlinkBps: 1e9 },
      uplink: { address: '127.0.0.1', teid: i + 1 },
      ipType: 'IPv4',
      flow: { qfi: 1, fiveQi: 9, arp: 1 },
    });
    readSetupResponseTransfer(response);
  }
});
const full = await measured('SMF (authorisation, address, TEID, UPF rule, messages, downlink)', async () => {
  for (let i = 0; i < count; i++) {
    const supi = `001010${String(i).padStart(9, '0')}`;
    await smf.uplink(
      { supi, allowedNssai: [{ sst: 1 }], requestType: 1, dnn: undefined, sNssai: undefined },
      request(),
    );
    const setup = ports.n2.pop();
    if (setup !== undefined) smf.resourcesSetUp(setup.supi, setup.item.pduSessionId, response);
  }
});
process.stdout.write(
  `${`SMF / bare: ${(full / bare).toFixed(2)}; sessions held: ${smf.counts().sessions}`}\n`,
);
smf.stop();
