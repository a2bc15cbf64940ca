import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  addressOf,
  guestResults,
  prepareGuest,
  startGuest,
  tapLink,
  type GuestResult,
} from '../../../scripts/qemu-sctp/qemu-guest.ts';
import { loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';
import { createRawTransport } from '../../../src/network/transport/raw/raw-transport.ts';
import { tsharkFileFields } from '../../helpers/tshark.ts';
import { startCapture, type Capture } from '../sctp-raw/capture.ts';
import { runHandoverScenario, type HandoverArgs } from './handover-scenario.ts';
import type { ServiceView } from './handover-service.ts';
import { release } from './peer-link.ts';

/**
 * The `kernel-service` setup of handover-suite.ts: the service in a qemu guest, its AMF on our `kernel`
 * transport (the Linux kernel's SCTP; guest-service-handover.ts), and handover-scenario.ts's gNBs in this
 * process on our `raw` stack over the tap, so that the two SCTP implementations meet. dumpcap captures
 * the tap for tshark.
 */

/** Packages of the service with native code, and what they load at run time (qemu-guest.ts). */
const SERVICE_PACKAGES = [
  'better-sqlite3',
  'bindings',
  'file-uri-to-path',
  '@datadog/pprof',
  'node-gyp-build',
  'pprof-format',
  'source-map',
];

export interface ServiceInGuest {
  /** The scenario's results (PMN-RESULT lines) and the guest's console; exit status 0 when both ended well. */
  result: GuestResult;
  /** What the service reported, missing when it failed. */
  view: ServiceView | undefined;
  /** The service's address: its N2 and N3. */
  service: string;
  /** The capture of the tap: the gNBs' SCTP packets' checksum status (our stack's), each NGAP frame the service sent. */
  wire: {
    checksums: string[];
    /** Per frame from the service: its NGAP procedure codes, whether tshark marked it malformed, its worst expert severity. */
    fromService: { procedures: string; malformed: string; severity: string }[];
  };
}

export async function runServiceInGuest(options: {
  index: number;
  args: Omit<HandoverArgs, 'amf' | 'controlPort'>;
  name: string;
}): Promise<ServiceInGuest> {
  const controlPort = 7879;
  await prepareGuest();
  const tap = tapLink(options.index);
  const service = addressOf(tap.guest4);
  const args: HandoverArgs = { ...options.args, amf: service, controlPort };
  const work = await mkdtemp(join(tmpdir(), 'pmn-ho-capture-'));
  const file = join(work, 'tap.pcapng');
  let capture: Capture | undefined;
  try {
    const guest = await startGuest({
      entry: fileURLToPath(new URL('guest-service-handover.ts', import.meta.url)),
      args: { ...args, name: options.name },
      tap,
      timeoutMs: 200_000,
      nativePackages: SERVICE_PACKAGES,
      memoryMb: 1024,
      beforeBoot: async () => {
        capture = await startCapture(tap.name, file);
      },
    });
    const lines: string[] = [];
    let failed = false;
    let checksums: string[] = [];
    try {
      await guest.waitFor(/^PMN-STEP service-ready/);
      const load = loadNativeAddon();
      if (!load.ok) throw load.error;
      const { transport } = createRawTransport({ addon: load.addon, addresses: [addressOf(tap.host4)] });
      try {
        await runHandoverScenario(transport, args, options.name, {
          hold: () => release(service, controlPort),
          report: (value) => lines.push(`PMN-RESULT ${JSON.stringify(value)}`),
        });
      } finally {
        await transport.close();
      }
      // Before the tap goes with the guest: every association has ended.
      checksums = (await capture?.stop([addressOf(tap.host4)])) ?? [];
      capture = undefined;
      await release(service, controlPort);
    } catch (error) {
      failed = true;
      lines.push(`HOST-ERROR ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    const ended = await guest.finished;
    await capture?.stop([]).catch(() => undefined);
    const result = { exitCode: failed ? 1 : ended.exitCode, lines: [...lines, ...ended.lines] };
    const view = guestResults(ended.lines).find(
      (r): r is ServiceView & { step: string } => (r as { step?: string }).step === 'service',
    );
    const fromService = (
      await tsharkFileFields(file, ['ngap.procedureCode', '_ws.malformed', '_ws.expert.severity'], {
        args: ['-Y', `ngap && ip.src == ${service}`, '-E', 'occurrence=a', '-E', 'aggregator=,'],
      }).catch(() => [])
    ).map(([procedures = '', malformed = '', severity = '']) => ({ procedures, malformed, severity }));
    return { result, view, service, wire: { checksums, fromService } };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
