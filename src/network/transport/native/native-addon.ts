import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../../../package-root.ts';
import type { Crc32c } from '../sctp/crc32c.ts';

/**
 * The typed face of the native addon (`native/*.c`, built by `npm ci` into
 * `build/Release/pmn_native.node`): raw IP sockets for protocol 132 and UDP sockets (the `raw` and
 * `udp` transports' links) and the host kernel's SCTP (the `kernel` transport). Loading it needs no
 * SCTP in the kernel.
 *
 * Conventions of the addon: argument mistakes throw `TypeError`s; system call failures while setting a
 * socket up throw Node-style errors (`code` 'EPROTONOSUPPORT', `errno`, `syscall`); per-message
 * failures of `send`-like calls are returned as the errno code (a string), because they are network
 * conditions (a full buffer, an unreachable host) and not bugs. Handlers run on the event loop.
 */

/** An errno code as Node spells it, e.g. 'EAGAIN', 'EHOSTUNREACH'. */
type ErrnoCode = string;

export type IpFamily = 4 | 6;

interface RawSocketHandlers {
  /**
   * One datagram of protocol 132: its payload (the SCTP packet; an IPv4 header is already stripped),
   * where it came from and the local address it was sent to.
   */
  onPacket(packet: Buffer, source: string, destination: string): void;
  /** A receive failure or a datagram the addon could not parse ('EBADMSG', 'EMSGSIZE'); not fatal. */
  onError(error: NodeJS.ErrnoException): void;
}

interface SocketBufferOptions {
  /** SO_RCVBUF (SO_RCVBUFFORCE for raw sockets where CAP_NET_ADMIN allows it). */
  receiveBufferSize?: number;
  sendBufferSize?: number;
}

/** A raw IP socket for protocol 132 (needs CAP_NET_RAW). It receives every SCTP datagram of the host. */
export interface RawSocket {
  /** Receives only datagrams to `address`, and sends from it. */
  bind(address: string): void;
  /** Sends one SCTP packet; undefined when the kernel took it, else the errno code (the packet is lost). */
  send(packet: Uint8Array, address: string, source?: string): ErrnoCode | undefined;
  /**
   * `send` of each packet (the three arrays are read in step), with one sendmmsg system call per 64
   * packets. Undefined when the kernel took them all, else the errno code of the first it refused;
   * the others still went.
   */
  sendBatch(
    packets: readonly Uint8Array[],
    addresses: readonly string[],
    sources: readonly (string | undefined)[],
  ): ErrnoCode | undefined;
  /** Idempotent. */
  close(): void;
}

interface UdpSocketHandlers {
  /** One datagram's payload and where it came from. */
  onPacket(packet: Buffer, address: string, port: number): void;
  /** A receive failure (an ICMP error for an earlier datagram, e.g. 'ECONNREFUSED'); not fatal. */
  onError(error: NodeJS.ErrnoException): void;
}

/**
 * A UDP socket (IPv6 ones are IPv6-only) for SCTP's UDP encapsulation: datagrams leave in batches
 * (sendmmsg) and the handler calls of one readable event share one callback scope.
 */
export interface UdpSocket {
  /** Binds; returns the port (an ephemeral one for 0). Throws EADDRINUSE, EADDRNOTAVAIL. */
  bind(address: string, port: number): number;
  /**
   * One datagram per packet (the three arrays are read in step), one sendmmsg system call per 64.
   * Undefined when the kernel took them all, else the errno code of the first it refused.
   */
  send(
    packets: readonly Uint8Array[],
    addresses: readonly string[],
    ports: readonly number[],
  ): ErrnoCode | undefined;
  /** Idempotent. */
  close(): void;
}

type UdpSocketConstructor = new (
  family: IpFamily,
  handlers: UdpSocketHandlers,
  options?: SocketBufferOptions,
) => UdpSocket;

type RawSocketConstructor = new (
  family: IpFamily,
  handlers: RawSocketHandlers,
  options?: SocketBufferOptions,
) => RawSocket;

/** A peer or local transport address as the kernel reports it. */
interface SctpAddress {
  address: string;
  port: number;
}

/** RFC 6458 6.1.1: SCTP_COMM_UP, SCTP_COMM_LOST, SCTP_RESTART, SCTP_SHUTDOWN_COMP, SCTP_CANT_STR_ASSOC. */
type AssocChangeState = 'comm-up' | 'comm-lost' | 'restart' | 'shutdown-comp' | 'cant-str-assoc';

/** RFC 6458 6.1.2 (SCTP_ADDR_*), with Linux's SCTP_ADDR_POTENTIALLY_FAILED. */
export type PeerAddressChangeState =
  'available' | 'unreachable' | 'removed' | 'added' | 'made-prim' | 'confirmed' | 'potentially-failed';

export type SctpNotification =
  | {
      type: 'assoc-change';
      assocId: number;
      state: AssocChangeState;
      /** sac_error: Linux puts an errno or the ABORT's first error cause here. */
      error: number;
      outboundStreams: number;
      inboundStreams: number;
      /** sac_info: after the peer's ABORT, its error causes (RFC 9260 3.3.10); else empty. */
      info: Buffer;
    }
  | {
      type: 'peer-addr-change';
      assocId: number;
      address: SctpAddress | null;
      state: PeerAddressChangeState;
      error: number;
    }
  /** SCTP_SHUTDOWN_EVENT: the peer sent SHUTDOWN; it sends no more data. */
  | { type: 'shutdown-event'; assocId: number };

export interface SctpSocketHandlers {
  /**
   * One piece of a user message: all of it when `complete`, else the first or a middle part (the
   * message was larger than the addon's 64 KiB receive buffer); pieces of one association arrive in
   * order.
   */
  onMessage(
    assocId: number,
    stream: number,
    ppid: number,
    data: Buffer,
    complete: boolean,
    unordered: boolean,
  ): void;
  onNotification(notification: SctpNotification): void;
  /** The socket can take data again, once after each `wantWritable()`. */
  onWritable(): void;
  onError(error: NodeJS.ErrnoException): void;
}

export interface SctpSocketOptions extends SocketBufferOptions {
  /** SCTP_INITMSG (RFC 6458 8.1.3); the kernel's defaults for what is absent. */
  outboundStreams?: number;
  maxInboundStreams?: number;
  maxInitAttempts?: number;
  /** Milliseconds. */
  maxInitTimeout?: number;
}

/** A one-to-many (SOCK_SEQPACKET) kernel SCTP socket: many associations, told apart by their ids. */
export interface SctpSocket {
  /** sctp_bindx(SCTP_BINDX_ADD_ADDR): every address with the same port (0: the kernel picks one). */
  bind(addresses: readonly string[], port: number): void;
  listen(backlog: number): void;
  /** sctp_connectx: starts an association and returns its id; 'comm-up' or 'cant-str-assoc' follows. */
  connect(addresses: readonly string[], port: number): number;
  send(
    assocId: number,
    stream: number,
    ppid: number,
    data: Uint8Array,
    unordered: boolean,
  ): ErrnoCode | undefined;
  /** Graceful SHUTDOWN once queued data is acknowledged (SCTP_EOF). */
  shutdown(assocId: number): ErrnoCode | undefined;
  /** ABORT with a User-Initiated Abort cause carrying `reason` (SCTP_ABORT). */
  abort(assocId: number, reason?: Uint8Array): ErrnoCode | undefined;
  peerAddresses(assocId: number): SctpAddress[];
  /** The association's local addresses; assocId 0: the socket's bound addresses. */
  localAddresses(assocId: number): SctpAddress[];
  wantWritable(): void;
  /** Idempotent; associations still open are aborted by the kernel. */
  close(): void;
}

type SctpSocketConstructor = new (
  family: IpFamily,
  handlers: SctpSocketHandlers,
  options?: SctpSocketOptions,
) => SctpSocket;

export interface NativeAddon {
  RawSocket: RawSocketConstructor;
  SctpSocket: SctpSocketConstructor;
  UdpSocket: UdpSocketConstructor;
  /** CRC32c of bytes[start, end) continuing from crc (native/crc32c.c: SSE4.2 where the CPU has it). */
  crc32c: Crc32c;
}

type AddonLoad = { ok: true; addon: NativeAddon } | { ok: false; error: Error };

/** Where `npm ci` puts the addon: `build/Release` at the repository root. */
const defaultAddonPath = (): string => join(packageRoot(), 'build', 'Release', 'pmn_native.node');

const loaded = new Map<string, AddonLoad>();

/**
 * Loads the addon once per path. A missing or broken build is an error value, so a service can fall
 * back to the `udp` transport and say why.
 */
export function loadNativeAddon(path: string = defaultAddonPath()): AddonLoad {
  let result = loaded.get(path);
  if (result === undefined) {
    try {
      const addon = createRequire(import.meta.url)(path) as NativeAddon;
      result = { ok: true, addon };
    } catch (cause) {
      result = {
        ok: false,
        error: new Error(`cannot load the native addon ${path} (run npm ci to build it)`, {
          cause,
        }),
      };
    }
    loaded.set(path, result);
  }
  return result;
}

export type Support = { available: true } | { available: false; code: string; reason: string };

const NOOP_SCTP_HANDLERS: SctpSocketHandlers = {
  onMessage: () => undefined,
  onNotification: () => undefined,
  onWritable: () => undefined,
  onError: () => undefined,
};

const NOOP_RAW_HANDLERS: RawSocketHandlers = {
  onPacket: () => undefined,
  onError: () => undefined,
};

function probe(open: () => { close(): void }, what: string): Support {
  try {
    open().close();
    return { available: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
    return { available: false, code, reason: `${what}: ${(error as Error).message}` };
  }
}

/**
 * Whether the host kernel has SCTP: opens and closes an IPv4 socket. 'EPROTONOSUPPORT' means no SCTP
 * (not built, or the module cannot be loaded), which is when the service defaults to `raw`.
 */
export function kernelSctpSupport(addon: NativeAddon): Support {
  return probe(() => new addon.SctpSocket(4, NOOP_SCTP_HANDLERS), 'kernel SCTP');
}

/** Whether raw IP sockets for protocol 132 can be opened ('EPERM' without CAP_NET_RAW). */
export function rawSocketSupport(addon: NativeAddon, family: IpFamily = 4): Support {
  return probe(() => new addon.RawSocket(family, NOOP_RAW_HANDLERS), `raw IPv${family} socket`);
}
