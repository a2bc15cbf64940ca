// PDU session establishments per second in the SMF (issue 17 item 5, control side): CPU per establishment
// (Request in, authorisation, address, TEID, UPF rule, Accept and setup transfer out, setup response
// read, downlink installed) through createSmf with in-memory ports, beside a bare baseline measured in
// the same run: encoding the same Accept and transfer and reading the same response transfer alone.
// Run: npx tsx bench/sessions.ts [--sessions N (20000)]
import { parseArgs } from 'node:util';
import pino from 'pino';
import { systemTimers } from '../src/clock.ts';
import { encodeComplete } from '../src/network/asn1/complete.ts';
import { encodeNasMessage } from '../src/network/nas/index.ts';
import { encodePDUSessionResourceSetupResponseTransfer } from '../src/network/ngap/generated/codec.ts';
import { readSetupResponseTransfer, setupRequestTransfer } from '../src/network/smf/n2-transfers.ts';
import { createSmf } from '../src/network/smf/smf.ts';
import { establishmentAccept } from '../src/network/smf/sm-messages.ts';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '20000' } } });
const count = Number(values.sessions);

const response = encodeComplete(
  {
    dLQosFlowPerTNLInformation: {
      uPTransportLayerInformation: {
        choice: 'gTPTunnel' as const,
        value: {
          transportLayerAddress: { bytes: Uint8Array.of(127, 0, 0, 2), length: 32 },
          gTPTEID: Uint8Array.of(0, 0, 0, 7),
        },
      },
      associatedQosFlowList: [{ qosFlowIdentifier: 1 }],
    },
  },
  true,
  encodePDUSessionResourceSetupResponseTransfer,
);
const subscription = {
  imsi: '',
  profile: {
    name: 'default',
    ueIpPool: '10.0.0.0/8',
    dns: '8.8.8.8',
    mtu: 1400,
    ambrUplink: '1 Gbps',
    ambrDownlink: '1 Gbps',
    var5qi: 9,
    priorityLevel: 90,
  },
  authorisedSessions: [
    {
      policy: 'default',
      dataNetwork: 'internet',
      slice: { sst: 1 },
      ambrUplink: '1 Gbps',
      ambrDownlink: '1 Gbps',
      var5qi: 9,
      arp: 1,
    },
  ],
};
let upfId = 0;
const pending: [string, number][] = [];
const smf = createSmf({
  subscriptionData: { getSubscriptionData: (imsi) => Promise.resolve({ ...subscription, imsi }) },
  configurationEvents: { subscribe: () => () => undefined },
  state: { sessionEstablished: () => undefined, sessionReleased: () => undefined },
  userPlane: {
    n3Address: '127.0.0.1',
    establishSession: (r) => ({
      ok: true,
      value: {
        id: ++upfId,
        imsi: r.imsi,
        uplinkTeid: r.uplinkTeid,
        ambr: r.ambr,
        userPlane: { state: 'inactive' },
      },
    }),
    updateDownlink: () => ({ ok: true, value: undefined }),
    deactivate: () => ({ ok: true, value: undefined }),
    modifyAmbr: () => ({ ok: true, value: undefined }),
    release: () => ({ ok: true, value: undefined }),
  },
  amf: {
    sendN1: (_supi, message) => encodeNasMessage(message).length > 0,
    setupResources: (supi, item) => {
      if (item.n1 !== undefined) encodeNasMessage(item.n1);
      pending.push([supi, item.pduSessionId]);
      return true;
    },
    modifyResources: () => true,
    releaseResources: () => true,
    pageForDownlinkData: () => false,
  },
  logger: pino({ level: 'silent' }),
  timers: systemTimers,
});

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
    const [s, id] = pending.pop() ?? ['', 0];
    smf.resourcesSetUp(s, id, response);
  }
});
process.stdout.write(
  `${`SMF / bare: ${(full / bare).toFixed(2)}; sessions held: ${smf.counts().sessions}`}\n`,
);
smf.stop();
