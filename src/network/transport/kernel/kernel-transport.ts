import {
  LISTENER_SHUTDOWN_TIMEOUT_MS,
  type AcceptAssociation,
  type AssociationHandler,
  type AssociationUp,
  type ConnectOptions,
  type ListenOptions,
  type N2Association,
  type N2Listener,
  type N2Transport,
  type TransportAddress,
} from '../n2-transport.ts';
import type { IpFamily, NativeAddon, SctpSocketOptions } from '../native/native-addon.ts';
import { KernelAssociation } from './kernel-association.ts';
import { KernelEndpoint, streamCounts, type EndpointHooks, type EndpointOptions } from './kernel-endpoint.ts';

/** Timers the transport uses (injected in tests). */
export interface TransportClock {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

interface KernelTransportOptions {
  /** The loaded native addon (`loadNativeAddon`); check `kernelSctpSupport` first. */
  addon: NativeAddon;
  /** Largest inbound or outbound user message, in bytes. Default 256 KiB. */
  maxMessageSize?: number;
  /** SO_SNDBUF: the bytes the kernel queues per association before `send` says `queue-full`. */
  sendBufferSize?: number;
  receiveBufferSize?: number;
  /** How long `N2Listener.close()` waits for shutdowns before aborting; `LISTENER_SHUTDOWN_TIMEOUT_MS`. */
  shutdownTimeoutMs?: number;
  /** Receive failures and unparsable notifications (not fatal). Default: a process warning. */
  onError?: (error: Error) => void;
  clock?: TransportClock;
}

const DEFAULT_MAX_MESSAGE_SIZE = 256 * 1024;
/** Backlog of a one-to-many socket: any non-zero value means "accept associations" (RFC 6458 3.1.3). */
const LISTEN_BACKLOG = 128;

type Handle = (association: N2Association, up: AssociationUp) => AssociationHandler;

/**
 * The `kernel` N2 transport: the host kernel's SCTP through the native addon. A listener is one
 * one-to-many socket bound to all its addresses (sctp_bindx); each `connect` opens its own socket, so
 * a simulator's associations are as independent as separate radios.
 */
export class KernelTransport implements N2Transport {
  readonly kind = 'kernel';
  readonly #options: KernelTransportOptions;
  readonly #clock: TransportClock;
  readonly #endpoints = new Set<KernelEndpoint>();
  #nextId = 1;

  constructor(options: KernelTransportOptions) {
    this.#options = options;
    this.#clock = options.clock ?? {
      setTimeout,
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    };
  }

  async listen(options: ListenOptions, accept: AcceptAssociation): Promise<N2Listener> {
    const listener = new KernelListener(this.#clock, this.#shutdownTimeout());
    const endpoint = this.#open(familyOf(options.addresses), options, {
      up: (endpoint, change) => {
        if (listener.closing) return void endpoint.socket.abort(change.assocId);
        const association = this.#associate(endpoint, change.assocId, change);
        association.handler = accept(association, this.#up(endpoint, association));
      },
      cantStart: () => undefined,
      ended: () => undefined,
      error: this.#onError(),
    });
    try {
      endpoint.socket.bind(options.addresses, options.port);
      endpoint.socket.listen(LISTEN_BACKLOG);
      listener.open(endpoint, endpoint.localAddresses(0), () => this.#endpoints.delete(endpoint));
    } catch (error) {
      this.#closeEndpoint(endpoint);
      throw error;
    }
    return listener;
  }

  connect(options: ConnectOptions, handler: Handle): Promise<N2Association> {
    return new Promise((resolve, reject) => {
      const port = options.remote[0]?.port;
      if (port === undefined || options.remote.some((remote) => remote.port !== port)) {
        reject(new Error('kernel transport: connect needs one or more remote addresses with the same port'));
        return;
      }
      let assocId: number | undefined;
      const addresses = [...options.remote.map((r) => r.address), ...(options.local?.addresses ?? [])];
      const endpoint = this.#open(familyOf(addresses), options, {
        up: (endpoint, change) => {
          if (change.assocId !== assocId) return void endpoint.socket.abort(change.assocId);
          const association = this.#associate(endpoint, change.assocId, change);
          association.handler = handler(association, this.#up(endpoint, association));
          resolve(association);
        },
        cantStart: (endpoint) => {
          this.#closeEndpoint(endpoint);
          reject(
            new Error(
              `kernel transport: no association with ${describe(options.remote)} (SCTP_CANT_STR_ASSOC)`,
            ),
          );
        },
        // One socket per connect: it goes with its association.
        ended: (association) => {
          if (association.assocId === assocId) this.#closeEndpoint(endpoint);
        },
        error: this.#onError(),
      });
      try {
        if (options.local !== undefined)
          endpoint.socket.bind(options.local.addresses, options.local.port ?? 0);
        assocId = endpoint.socket.connect(
          options.remote.map((r) => r.address),
          port,
        );
      } catch (error) {
        this.#closeEndpoint(endpoint);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  async close(): Promise<void> {
    for (const endpoint of [...this.#endpoints]) {
      for (const association of [...endpoint.associations.values()]) association.abort();
      this.#closeEndpoint(endpoint);
    }
  }

  #open(
    family: IpFamily,
    streams: { outboundStreams?: number; inboundStreams?: number },
    hooks: EndpointHooks,
  ): KernelEndpoint {
    const socketOptions: SctpSocketOptions = {};
    if (streams.outboundStreams !== undefined) socketOptions.outboundStreams = streams.outboundStreams;
    if (streams.inboundStreams !== undefined) socketOptions.maxInboundStreams = streams.inboundStreams;
    if (this.#options.sendBufferSize !== undefined)
      socketOptions.sendBufferSize = this.#options.sendBufferSize;
    if (this.#options.receiveBufferSize !== undefined)
      socketOptions.receiveBufferSize = this.#options.receiveBufferSize;
    const options: EndpointOptions = {
      socket: socketOptions,
      maxMessageSize: this.#options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE,
    };
    const endpoint = new KernelEndpoint(this.#options.addon, family, options, hooks);
    this.#endpoints.add(endpoint);
    return endpoint;
  }

  #associate(
    endpoint: KernelEndpoint,
    assocId: number,
    change: Parameters<typeof streamCounts>[0],
  ): KernelAssociation {
    const peers = endpoint.peerAddresses(assocId);
    const association = new KernelAssociation(
      endpoint,
      this.#nextId++,
      assocId,
      peers[0] ?? { address: '', port: 0 },
      streamCounts(change),
    );
    endpoint.adopt(association);
    return association;
  }

  #up(endpoint: KernelEndpoint, association: KernelAssociation): AssociationUp {
    return {
      peerAddresses: endpoint.peerAddresses(association.assocId),
      localAddresses: endpoint.localAddresses(association.assocId),
      streams: association.streams,
    };
  }

  #closeEndpoint(endpoint: KernelEndpoint): void {
    this.#endpoints.delete(endpoint);
    endpoint.close();
  }

  #shutdownTimeout(): number {
    return this.#options.shutdownTimeoutMs ?? LISTENER_SHUTDOWN_TIMEOUT_MS;
  }

  #onError(): (error: Error) => void {
    return this.#options.onError ?? ((error) => process.emitWarning(error));
  }
}

class KernelListener implements N2Listener {
  local: readonly TransportAddress[] = [];
  closing = false;
  #endpoint: KernelEndpoint | undefined;
  #release: () => void = () => undefined;

  constructor(
    private readonly clock: TransportClock,
    private readonly shutdownTimeoutMs: number,
  ) {}

  open(endpoint: KernelEndpoint, local: TransportAddress[], release: () => void): void {
    this.#endpoint = endpoint;
    this.local = local;
    this.#release = release;
  }

  async close(): Promise<void> {
    const endpoint = this.#endpoint;
    // Already closing, or the transport's close() took the socket.
    if (this.closing || endpoint === undefined || endpoint.closed) return;
    this.closing = true;
    // listen(0) on a one-to-many socket stops accepting new associations (RFC 6458 3.1.3).
    endpoint.socket.listen(0);
    const associations = [...endpoint.associations.values()];
    const ended = Promise.all(
      associations.map((association) => new Promise<void>((resolve) => association.whenEnded(resolve))),
    );
    for (const association of associations) association.shutdown();
    const timer = this.clock.setTimeout(() => {
      for (const association of associations) association.abort('listener closed');
    }, this.shutdownTimeoutMs);
    await ended;
    this.clock.clearTimeout(timer);
    this.#release();
    endpoint.close();
  }
}

/** An IPv6 socket serves IPv4 addresses too (unless IPV6_V6ONLY), so any IPv6 address asks for one. */
function familyOf(addresses: readonly string[]): IpFamily {
  return addresses.some((address) => address.includes(':')) ? 6 : 4;
}

function describe(addresses: readonly TransportAddress[]): string {
  return addresses
    .map((a) => (a.address.includes(':') ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`))
    .join(', ');
}
