/**
 * A member-like UPF host for test/system/n6-host-routes.test.ts, run inside a network namespace:
 * PMN Core's UPF (createUpf, the real addon) with host routes on, its N6 TUN `pmn-n6` in this
 * namespace, and a gNB's N3 socket on loopback that reports every G-PDU it receives. Commands on
 * stdin, one JSON object a line; answers and reports on stdout, one JSON object a line.
 *
 *   { "op": "establish", "ueIpv4": "...", "ueIpv6Prefix"?: "...", "teid": n }  -> { "op": "established", "id" }
 *   { "op": "release", "id": n }                                                  -> { "op": "released" }
 *   a G-PDU reaching the gNB                                                       -> { "op": "downlink", "teid", "payload" }
 */
import { createSocket } from 'node:dgram';
import { createInterface } from 'node:readline';
import { systemClock, systemTimers } from '../../src/clock.ts';
import { decodeGtpu, GtpuMessageType } from '../helpers/gtpu-codec.ts';
import { DEFAULT_UPF_SETTINGS } from '../../src/network/upf/upf-settings.ts';
import { createUpf } from '../../src/network/upf/upf.ts';

const say = (message: object): void => void process.stdout.write(`${JSON.stringify(message)}\n`);

const upf = createUpf({
  settings: {
    ...DEFAULT_UPF_SETTINGS,
    n3Address: '127.0.0.1',
    n3Port: 0,
    tunName: 'pmn-n6',
    datapath: 'tun',
    maxSessions: 64,
    maxFlows: 1024,
    hostRoutes: 'on',
    routeProtocol: Number(process.env.ROUTE_PROTOCOL ?? 200),
  },
  records: { recordFlowReports: () => true, recordUsage: () => true, whenWritable: () => Promise.resolve() },
  clock: systemClock,
  timers: systemTimers,
});
upf.start();

const gnb = createSocket('udp4');
gnb.on('message', (bytes) => {
  const decoded = decodeGtpu(bytes);
  if (!decoded.ok || decoded.message.type !== GtpuMessageType.gPdu) return;
  const packet = decoded.message.payload;
  // An IPv4 packet carrying UDP: its payload after the 20-octet header (no options) and 8 of UDP.
  const payload = packet[9] === 17 ? Buffer.from(packet.subarray(28)).toString() : '';
  say({ op: 'downlink', teid: decoded.message.teid, payload });
});
gnb.bind(0, '127.0.0.1', () => {
  const gnbPort = gnb.address().port;
  createInterface({ input: process.stdin }).on('line', (line) => {
    const command = JSON.parse(line) as {
      op: string;
      id?: number;
      ueIpv4?: string;
      ueIpv6Prefix?: string;
      teid?: number;
    };
    if (command.op === 'establish') {
      const s = upf.establishSession({
        imsi: '001010000000001',
        ueIpv4: command.ueIpv4 ?? '',
        ...(command.ueIpv6Prefix !== undefined && { ueIpv6Prefix: command.ueIpv6Prefix }),
        uplinkTeid: command.teid ?? 1,
        ambr: { uplinkBps: 0, downlinkBps: 0 },
      });
      if (!s.ok) return say({ op: 'error', error: s.error });
      const active = upf.updateDownlink(s.value.id, {
        gnbAddress: '127.0.0.1',
        gnbPort,
        remoteTeid: command.teid ?? 1,
      });
      say(active.ok ? { op: 'established', id: s.value.id } : { op: 'error', error: active.error });
    } else if (command.op === 'release') {
      const released = upf.release(command.id ?? 0);
      say(released.ok ? { op: 'released' } : { op: 'error', error: released.error });
    }
  });
  say({ op: 'ready', failures: upf.counters().hostRouteFailures });
});
