import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

import {
  addressOf,
  guestResults,
  guestUnavailable,
  prepareGuest,
  startGuest,
  tapLink,
  type Guest,
  type GuestResult,
} from '../../../scripts/qemu-sctp/qemu-guest.ts';
import { startProgramInNamespace } from '../../helpers/netns-program.ts';
import { createVethNamespace, rawPeerInNamespaceUnavailable } from '../../helpers/netns.ts';

/**
 * The host side of the N2 system tests whose radio side is a simulator program on another SCTP
 * transport: `kernel` (a qemu guest on a tap, the Linux kernel's SCTP) or `raw` (a network namespace on a
 * veth pair, our SCTP on its raw socket). The service's AMF listens on our `raw` stack on the host's end
 * either way. The program reports PMN-RESULT lines, announces a PMN-STEP when it holds, and goes on once
 * the host connects to its control port.
 */
export type PeerTransport = 'kernel' | 'raw';

export interface PeerLink {
  /** The host's address on the link: the service's N2 (and N3). */
  readonly host: string;
  /** The program's address on the link. */
  readonly peer: string;
  /** Deletes the namespace (raw; a guest's tap goes with the guest). */
  remove(): Promise<void>;
}

export interface PeerRun {
  /** The program: in the guest, bundled (`kernel`); in the namespace, as it is (`raw`). */
  entry: Partial<Record<PeerTransport, URL>>;
  args: Record<string, unknown>;
  controlPort: number;
  /** Runs once the link exists, before the program starts (the service binds to `link.host`). */
  beforeStart: (link: PeerLink) => Promise<void>;
  /** The PMN-STEP the program holds at, and what the host does meanwhile (it keeps its own failures). */
  hold: { step: string; meanwhile: () => Promise<void> };
}

/** Why `transport`'s peer cannot run here, or undefined. */
export function peerUnavailable(transport: PeerTransport): string | undefined {
  return transport === 'kernel'
    ? (guestUnavailable(true) ?? rawPeerInNamespaceUnavailable())
    : rawPeerInNamespaceUnavailable();
}

/** Tells the program holding at `port` of `address` to go on; resolves once it closed the connection. */
export function release(address: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = connect(port, address);
    socket.on('error', reject).on('close', () => resolve());
    socket.resume();
  });
}

/**
 * Runs the program over `transport` to its end: link, `beforeStart`, program, `hold.meanwhile` while it
 * holds, release. Resolves with its result once it ended (and the link is gone), whatever the host's
 * part threw meanwhile; `index` tells links of one file apart.
 */
export async function runPeer(transport: PeerTransport, index: number, run: PeerRun): Promise<GuestResult> {
  const timeoutMs = 200_000;
  let link: PeerLink;
  const entry = run.entry[transport];
  if (entry === undefined) throw new Error(`no program for ${transport}`);
  let guest: Guest;
  if (transport === 'kernel') {
    await prepareGuest();
    const tap = tapLink(index);
    link = { host: addressOf(tap.host4), peer: addressOf(tap.guest4), remove: async () => undefined };
    guest = await startGuest({
      entry: fileURLToPath(entry),
      args: { ...run.args, amf: link.host, controlPort: run.controlPort },
      tap,
      timeoutMs,
      beforeBoot: () => run.beforeStart(link),
    });
  } else {
    const ns = await createVethNamespace(String.fromCharCode(0x6a + index), 217);
    link = { host: ns.hostAddress, peer: ns.peerAddress, remove: () => ns.remove() };
    try {
      await run.beforeStart(link);
    } catch (error) {
      await link.remove();
      throw error;
    }
    guest = startProgramInNamespace(
      ns,
      fileURLToPath(entry),
      { ...run.args, amf: link.host, controlPort: run.controlPort, local: link.peer },
      timeoutMs,
    );
  }
  // The program's output tells what went wrong if it ended before holding: its result is what counts.
  await guest
    .waitFor(new RegExp(`^PMN-STEP ${run.hold.step}`))
    .then(async () => {
      try {
        await run.hold.meanwhile();
      } finally {
        await release(link.peer, run.controlPort);
      }
    })
    .catch(() => undefined);
  const result = await guest.finished;
  await link.remove();
  return result;
}

/** The result `name` the program reported (a PMN-RESULT with that `step`); fails with its output. */
export function stepOf(result: GuestResult | undefined, name: string): Record<string, unknown> {
  const found = (guestResults(result?.lines ?? []) as { step: string }[]).find((s) => s.step === name);
  if (found === undefined) throw new Error(`the program reported no ${name}:\n${result?.lines.join('\n')}`);
  return found;
}
