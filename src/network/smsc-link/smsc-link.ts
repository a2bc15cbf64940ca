// The ESME side of an SMPP 3.4 session with an external SMSC (docs/sms.md, "SMSC link"): one TCP
// connection bound as a transceiver (4.1.5), kept alive with enquire_link (4.11), submit_sm out (4.4),
// deliver_sm in (4.6: messages for our subscribers, and delivery receipts), unbind on stop (4.2). A lost
// connection or a refused bind is retried with doubling back-off; an SMSC that breaks the framing, or
// keeps sending PDUs that do not decode, is disconnected with the reason logged.

import { connect as tcpConnect, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Timers } from '../../clock.ts';
import {
  COMMAND,
  decodePdu,
  encodePdu,
  HEADER_LENGTH,
  INTERFACE_VERSION,
  isResponse,
  MAX_PDU_LENGTH,
  readHeader,
  STATUS,
  type OutgoingPdu,
  type Pdu,
  type ShortMessage,
} from './pdu.ts';
import { isDeliveryReceipt, parseReceipt, type DeliveryReceipt } from './receipt.ts';

interface SmscLinkConfig {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType: string;
}

export interface SmscLinkSettings {
  /** How long a request waits for its response before the connection is taken as dead. */
  responseTimeoutMs: number;
  /** enquire_link every so often while bound. */
  enquireLinkIntervalMs: number;
  /** The first reconnect delay; it doubles after each failure up to `maxBackoffMs`. */
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** Malformed PDUs in a row after which the SMSC is disconnected. */
  maxMalformedInRow: number;
}

const DEFAULT_SMSC_LINK_SETTINGS: SmscLinkSettings = {
  responseTimeoutMs: 10_000,
  enquireLinkIntervalMs: 30_000,
  initialBackoffMs: 1_000,
  maxBackoffMs: 60_000,
  maxMalformedInRow: 5,
};

/** What the link hands to the core: messages for our subscribers and receipts for messages we sent. */
export interface SmscLinkHandlers {
  /** A deliver_sm that is no receipt; resolves with the command_status to answer (ESME_ROK: taken). */
  deliver(message: ShortMessage): Promise<number>;
  receipt(receipt: DeliveryReceipt): Promise<void>;
}

export type SmscLinkState = 'disabled' | 'connecting' | 'bound';

export type SubmitResult =
  | { ok: true; messageId: string }
  /**
   * `status` is the SMSC's command_status when it answered; absent when the link failed first.
   * `inDoubt`: the submit_sm went out and no answer naming a refusal came (the link was lost, the
   * answer was late, or it carried no message_id): the SMSC may have taken the message.
   */
  | { ok: false; error: string; status?: number; inDoubt?: true };

interface SmscLinkOptions {
  config: SmscLinkConfig;
  handlers: SmscLinkHandlers;
  timers: Timers;
  logger: Logger;
  settings?: Partial<SmscLinkSettings>;
  /** Opens the TCP connection; net.connect unless a test gives another. */
  connect?: (host: string, port: number) => Socket;
  /** Told of each PDU sent and received, by its command name ('malformed' for one that did not decode). */
  onPdu?: (direction: 'sent' | 'received', kind: string) => void;
}

interface Pending {
  kind: OutgoingPdu['kind'];
  resolve: (pdu: Pdu | { error: string; status?: number; inDoubt?: true }) => void;
  cancelTimer: () => void;
}

export class SmscLink {
  readonly #config: SmscLinkConfig;
  readonly #handlers: SmscLinkHandlers;
  readonly #timers: Timers;
  readonly #log: Logger;
  readonly #settings: SmscLinkSettings;
  readonly #connect: (host: string, port: number) => Socket;
  readonly #countPdu: (direction: 'sent' | 'received', kind: string) => void;

  #running = false;
  #state: SmscLinkState = 'disabled';
  #lastError: string | undefined;
  #socket: Socket | undefined;
  #buffer: Buffer = Buffer.alloc(0);
  #sequence = 0;
  readonly #pending = new Map<number, Pending>();
  #malformedInRow = 0;
  #backoffMs: number;
  #cancelReconnect: (() => void) | undefined;
  #cancelEnquire: (() => void) | undefined;
  #stateListeners = new Set<(state: SmscLinkState) => void>();

  constructor(options: SmscLinkOptions) {
    this.#config = options.config;
    this.#handlers = options.handlers;
    this.#timers = options.timers;
    this.#log = options.logger.child({ component: 'smsc-link' });
    this.#settings = { ...DEFAULT_SMSC_LINK_SETTINGS, ...options.settings };
    this.#backoffMs = this.#settings.initialBackoffMs;
    this.#connect = options.connect ?? ((host, port) => tcpConnect({ host, port }));
    this.#countPdu = options.onPdu ?? (() => {});
  }

  get state(): SmscLinkState {
    return this.#state;
  }

  /** Why the last connection ended or the last bind failed; set as the reconnect is scheduled. */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  /** Called on every change of state (the API's status, tests). */
  onState(listener: (state: SmscLinkState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#open();
  }

  /** Unbinds (waiting for unbind_resp at most the response timeout) and closes; no reconnect. */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#cancelReconnect?.();
    this.#cancelReconnect = undefined;
    if (this.#state === 'bound') await this.#request({ kind: 'unbind' });
    this.#close(undefined);
    this.#setState('disabled');
  }

  /** Sends a submit_sm; resolves with the SMSC's message_id, or why not. Only while bound. */
  async submit(message: Omit<ShortMessage, 'tlvs'>): Promise<SubmitResult> {
    if (this.#state !== 'bound') return { ok: false, error: `the SMSC link is ${this.#state}` };
    const answer = await this.#request({ kind: 'submit_sm', body: message });
    if ('error' in answer) return { ok: false, ...answer };
    if (answer.header.status !== STATUS.ESME_ROK) {
      return {
        ok: false,
        error: `submit_sm refused (0x${answer.header.status.toString(16)})`,
        status: answer.header.status,
      };
    }
    const id = answer.kind === 'submit_sm_resp' ? answer.body.id : undefined;
    return id
      ? { ok: true, messageId: id }
      : { ok: false, error: 'submit_sm_resp without message_id', inDoubt: true };
  }

  #setState(state: SmscLinkState): void {
    if (this.#state === state) return;
    this.#state = state;
    for (const listener of this.#stateListeners) listener(state);
  }

  #open(): void {
    this.#setState('connecting');
    const socket = this.#connect(this.#config.host, this.#config.port);
    this.#socket = socket;
    this.#buffer = Buffer.alloc(0);
    this.#malformedInRow = 0;
    socket.setNoDelay(true);
    // This connection's own first error: its reason when it closes (not one left by an earlier attempt).
    // Said (lastError) only at 'close', which comes a turn after 'error', together with the reconnect.
    let failure: string | undefined;
    socket.on('connect', () => void this.#bind(socket));
    socket.on('data', (chunk: Buffer) => this.#onData(socket, chunk));
    socket.on('error', (error) => {
      this.#log.debug({ err: error }, 'SMSC connection error');
      failure ??= `connection failed: ${error.message}`;
    });
    socket.on('close', () => {
      if (this.#socket === socket) this.#lost(failure ?? 'the SMSC closed the connection');
    });
  }

  async #bind(socket: Socket): Promise<void> {
    const answer = await this.#request({
      kind: 'bind_transceiver',
      body: {
        systemId: this.#config.systemId,
        password: this.#config.password,
        systemType: this.#config.systemType,
        interfaceVersion: INTERFACE_VERSION,
        addrTon: 0,
        addrNpi: 0,
        addressRange: '',
      },
    });
    if (this.#socket !== socket) return;
    if ('error' in answer) return this.#drop(socket, `bind_transceiver: ${answer.error}`);
    if (answer.header.status !== STATUS.ESME_ROK) {
      return this.#drop(socket, `bind refused by the SMSC (0x${answer.header.status.toString(16)})`);
    }
    this.#lastError = undefined;
    this.#backoffMs = this.#settings.initialBackoffMs;
    this.#log.info(
      { host: this.#config.host, port: this.#config.port },
      'bound to the SMSC as a transceiver',
    );
    this.#setState('bound');
    this.#scheduleEnquire(socket);
  }

  #scheduleEnquire(socket: Socket): void {
    this.#cancelEnquire = this.#timers.after(this.#settings.enquireLinkIntervalMs, () => {
      void this.#request({ kind: 'enquire_link' }).then((answer) => {
        if (this.#socket !== socket) return;
        if ('error' in answer) return this.#drop(socket, `enquire_link: ${answer.error}`);
        this.#scheduleEnquire(socket);
      });
    });
  }

  /**
   * Sends a request and waits for its response; a timeout or a lost link answers with an error, marked
   * `inDoubt` once the request was written (the SMSC may have acted on it).
   */
  #request(pdu: OutgoingPdu): Promise<Pdu | { error: string; status?: number; inDoubt?: true }> {
    const socket = this.#socket;
    if (socket === undefined) return Promise.resolve({ error: 'not connected' });
    // 1..0x7FFFFFFF (5.1.4), wrapping.
    this.#sequence = (this.#sequence % 0x7fffffff) + 1;
    const sequence = this.#sequence;
    return new Promise((resolve) => {
      const cancelTimer = this.#timers.after(this.#settings.responseTimeoutMs, () => {
        this.#pending.delete(sequence);
        resolve({ error: 'no response in time', inDoubt: true });
      });
      this.#pending.set(sequence, { kind: pdu.kind, resolve, cancelTimer });
      socket.write(encodePdu(pdu, sequence));
      this.#countPdu('sent', pdu.kind);
    });
  }

  #send(socket: Socket, pdu: OutgoingPdu, sequence: number, status: number = STATUS.ESME_ROK): void {
    if (socket.destroyed) return;
    socket.write(encodePdu(pdu, sequence, status));
    this.#countPdu('sent', pdu.kind);
  }

  #onData(socket: Socket, chunk: Buffer): void {
    if (this.#socket !== socket) return;
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const header = readHeader(this.#buffer);
      if (header === undefined) return;
      // A length that cannot be right leaves no way to find the next PDU: the session cannot go on.
      if (header.length < HEADER_LENGTH || header.length > MAX_PDU_LENGTH) {
        return this.#drop(socket, `the SMSC sent a PDU with command_length ${header.length}`);
      }
      if (this.#buffer.length < header.length) return;
      const bytes = this.#buffer.subarray(0, header.length);
      this.#buffer = this.#buffer.subarray(header.length);
      this.#onPdu(socket, bytes);
      if (this.#socket !== socket) return;
    }
  }

  #onPdu(socket: Socket, bytes: Uint8Array): void {
    const decoded = decodePdu(bytes);
    this.#countPdu('received', decoded.ok ? decoded.pdu.kind : 'malformed');
    if (!decoded.ok) {
      this.#malformedInRow += 1;
      this.#log.warn({ error: decoded.error }, 'malformed PDU from the SMSC');
      const header = decoded.header;
      if (header !== undefined && isResponse(header.commandId)) {
        this.#settle(header.sequence, { error: decoded.error });
      } else if (header !== undefined) {
        // A request that does not decode: its own response with the error, or generic_nack when its
        // command is unknown (4.3).
        this.#send(socket, responseTo(header.commandId), header.sequence, decoded.status);
      }
      if (this.#malformedInRow >= this.#settings.maxMalformedInRow) {
        this.#drop(
          socket,
          `the SMSC sent ${this.#malformedInRow} malformed PDUs in a row (last: ${decoded.error})`,
        );
      }
      return;
    }
    this.#malformedInRow = 0;
    const pdu = decoded.pdu;
    const sequence = pdu.header.sequence;
    switch (pdu.kind) {
      case 'enquire_link':
        return this.#send(socket, { kind: 'enquire_link_resp' }, sequence);
      case 'unbind':
        this.#send(socket, { kind: 'unbind_resp' }, sequence);
        return this.#drop(socket, 'the SMSC unbound');
      case 'deliver_sm':
        if (this.#state !== 'bound') {
          return this.#send(socket, { kind: 'deliver_sm_resp', body: {} }, sequence, STATUS.ESME_RINVBNDSTS);
        }
        return void this.#onDeliver(socket, pdu.body, sequence);
      case 'bind_transceiver':
      case 'submit_sm':
        // Requests only an ESME sends (4.1, 4.4): the SMSC may not; answered as an invalid command.
        return this.#send(socket, { kind: 'generic_nack' }, sequence, STATUS.ESME_RINVCMDID);
      default:
        return this.#settle(sequence, pdu);
    }
  }

  #settle(sequence: number, answer: Pdu | { error: string }): void {
    const pending = this.#pending.get(sequence);
    if (pending === undefined) {
      this.#log.warn({ sequence }, 'response from the SMSC to no request of ours; ignored');
      return;
    }
    this.#pending.delete(sequence);
    pending.cancelTimer();
    if ('error' in answer || answer.kind === 'generic_nack' || answer.kind === `${pending.kind}_resp`) {
      if (!('error' in answer) && answer.kind === 'generic_nack') {
        pending.resolve({
          error: `generic_nack (0x${answer.header.status.toString(16)})`,
          status: answer.header.status,
        });
      } else pending.resolve('error' in answer ? { ...answer, inDoubt: true } : answer);
      return;
    }
    // An answer that does not decode or does not fit: the request reached the SMSC, its fate is unknown.
    pending.resolve({ error: `${answer.kind} answered ${pending.kind}`, inDoubt: true });
  }

  async #onDeliver(socket: Socket, message: ShortMessage, sequence: number): Promise<void> {
    let status: number;
    try {
      if (isDeliveryReceipt(message.esmClass)) {
        const receipt = parseReceipt(message);
        if (receipt.ok) {
          await this.#handlers.receipt(receipt.value);
          status = STATUS.ESME_ROK;
        } else {
          this.#log.warn({ error: receipt.error }, 'unreadable delivery receipt from the SMSC');
          // Permanent: sending the same receipt again will not make it readable.
          status = STATUS.ESME_RX_P_APPN;
        }
      } else {
        status = await this.#handlers.deliver(message);
      }
    } catch (error) {
      this.#log.error({ err: error }, 'deliver_sm from the SMSC not handled');
      // Temporary (5.1.3): the SMSC keeps the message and tries again.
      status = STATUS.ESME_RX_T_APPN;
    }
    this.#send(socket, { kind: 'deliver_sm_resp', body: {} }, sequence, status);
  }

  /** Ends this connection with `reason` logged; the link reconnects after its back-off. */
  #drop(socket: Socket, reason: string): void {
    if (this.#socket !== socket) return;
    this.#log.warn({ reason }, 'SMSC link closed');
    this.#lost(reason);
  }

  #lost(reason: string): void {
    this.#lastError = reason;
    this.#close(reason);
    if (!this.#running) return;
    this.#setState('connecting');
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, this.#settings.maxBackoffMs);
    this.#cancelReconnect = this.#timers.after(delay, () => {
      this.#cancelReconnect = undefined;
      if (this.#running) this.#open();
    });
  }

  #close(reason: string | undefined): void {
    this.#cancelEnquire?.();
    this.#cancelEnquire = undefined;
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.destroy();
    for (const [sequence, pending] of this.#pending) {
      this.#pending.delete(sequence);
      pending.cancelTimer();
      pending.resolve({ error: reason ?? 'the SMSC link stopped', inDoubt: true });
    }
  }
}

/** The response to a request that did not decode: its own, or generic_nack for an unknown command (4.3). */
function responseTo(commandId: number): OutgoingPdu {
  switch (commandId) {
    case COMMAND.bind_transceiver:
      return { kind: 'bind_transceiver_resp', body: {} };
    case COMMAND.submit_sm:
      return { kind: 'submit_sm_resp', body: {} };
    case COMMAND.deliver_sm:
      return { kind: 'deliver_sm_resp', body: {} };
    case COMMAND.unbind:
      return { kind: 'unbind_resp' };
    case COMMAND.enquire_link:
      return { kind: 'enquire_link_resp' };
    default:
      return { kind: 'generic_nack' };
  }
}
