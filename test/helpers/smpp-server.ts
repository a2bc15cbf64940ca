// An SMSC for tests: an SMPP 3.4 server on loopback that binds transceivers with one system_id and
// password, answers enquire_link and submit_sm, records what it was sent, and sends deliver_sm, unbind or
// any raw bytes when the test says. Built on the link's own codec (src/network/smsc-link/pdu.ts).

import { createServer, type Server, type Socket } from 'node:net';
import {
  decodePdu,
  encodePdu,
  readHeader,
  STATUS,
  type OutgoingPdu,
  type Pdu,
  type ShortMessage,
} from '../../src/network/smsc-link/pdu.ts';

export interface TestSmscOptions {
  systemId?: string;
  password?: string;
  /** Answer enquire_link (default true); false plays an SMSC that stopped answering. */
  answerEnquireLink?: boolean;
  /** The command_status submit_sm is answered with (default ESME_ROK). */
  submitStatus?: number;
  /** Answer submit_sm (default true); false plays an SMSC that took it and went silent. */
  answerSubmit?: boolean;
}

export class TestSmsc {
  readonly #server: Server;
  readonly #options: Required<TestSmscOptions>;
  readonly #sockets = new Set<Socket>();
  #bound: Socket | undefined;
  #sequence = 0x1000;
  readonly #waiting = new Map<number, (pdu: Pdu) => void>();
  #nextMessageId = 1;
  /** Every PDU received, in order. */
  readonly received: Pdu[] = [];
  connections = 0;
  port = 0;

  constructor(options: TestSmscOptions = {}) {
    this.#options = {
      systemId: 'pmn',
      password: 'secret',
      answerEnquireLink: true,
      submitStatus: STATUS.ESME_ROK,
      answerSubmit: true,
      ...options,
    };
    this.#server = createServer((socket) => this.#accept(socket));
  }

  set answerEnquireLink(value: boolean) {
    this.#options.answerEnquireLink = value;
  }

  set answerSubmit(value: boolean) {
    this.#options.answerSubmit = value;
  }

  /** Listens on loopback, on `port` when given (an SMSC coming back where the link looks for it). */
  async listen(port = 0): Promise<number> {
    // A port taken meanwhile (the one an SMSC comes back on) fails the test instead of hanging it.
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const address = this.#server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
    return this.port;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  get isBound(): boolean {
    return this.#bound !== undefined && !this.#bound.destroyed;
  }

  submitted(): ShortMessage[] {
    return this.received.flatMap((p) => (p.kind === 'submit_sm' ? [p.body] : []));
  }

  /** Sends a deliver_sm to the bound ESME; resolves with its deliver_sm_resp. */
  deliver(body: Omit<ShortMessage, 'tlvs'> & { tlvs?: Map<number, Uint8Array> }): Promise<Pdu> {
    return this.#request({ kind: 'deliver_sm', body });
  }

  unbind(): Promise<Pdu> {
    return this.#request({ kind: 'unbind' });
  }

  enquireLink(): Promise<Pdu> {
    return this.#request({ kind: 'enquire_link' });
  }

  /** Writes raw bytes to the bound ESME (malformed PDUs). */
  sendRaw(bytes: Uint8Array): void {
    this.#bound?.write(bytes);
  }

  /** Closes the bound connection from this side. */
  dropConnection(): void {
    this.#bound?.destroy();
  }

  #request(pdu: OutgoingPdu): Promise<Pdu> {
    const socket = this.#bound;
    if (socket === undefined) throw new Error('no ESME is bound');
    const sequence = ++this.#sequence;
    return new Promise((resolve) => {
      this.#waiting.set(sequence, resolve);
      socket.write(encodePdu(pdu, sequence));
    });
  }

  #accept(socket: Socket): void {
    this.connections += 1;
    this.#sockets.add(socket);
    socket.on('close', () => {
      this.#sockets.delete(socket);
      if (this.#bound === socket) this.#bound = undefined;
    });
    socket.on('error', () => {});
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const header = readHeader(buffer);
        if (header === undefined || buffer.length < header.length || header.length < 16) return;
        const bytes = buffer.subarray(0, header.length);
        buffer = buffer.subarray(header.length);
        const decoded = decodePdu(bytes);
        if (!decoded.ok) throw new Error(`the test SMSC read a malformed PDU: ${decoded.error}`);
        this.#handle(socket, decoded.pdu);
      }
    });
  }

  #handle(socket: Socket, pdu: Pdu): void {
    this.received.push(pdu);
    const seq = pdu.header.sequence;
    const answer = (out: OutgoingPdu, status: number = STATUS.ESME_ROK): void =>
      void socket.write(encodePdu(out, seq, status));
    switch (pdu.kind) {
      case 'bind_transceiver': {
        const ok =
          pdu.body.systemId === this.#options.systemId && pdu.body.password === this.#options.password;
        if (ok) this.#bound = socket;
        answer(
          { kind: 'bind_transceiver_resp', body: { id: 'test-smsc' } },
          ok ? STATUS.ESME_ROK : STATUS.ESME_RINVPASWD,
        );
        return;
      }
      case 'enquire_link':
        if (this.#options.answerEnquireLink) answer({ kind: 'enquire_link_resp' });
        return;
      case 'unbind':
        answer({ kind: 'unbind_resp' });
        socket.end();
        return;
      case 'submit_sm': {
        if (!this.#options.answerSubmit) return;
        const ok = this.#options.submitStatus === STATUS.ESME_ROK;
        answer(
          { kind: 'submit_sm_resp', body: ok ? { id: `msg-${this.#nextMessageId++}` } : {} },
          this.#options.submitStatus,
        );
        return;
      }
      default: {
        const waiter = this.#waiting.get(seq);
        this.#waiting.delete(seq);
        waiter?.(pdu);
      }
    }
  }
}

/**
 * A TestSmsc listening on loopback (on `port` when given), its close handed to `closeAtEnd` first
 * (test/helpers/close-after-each.ts) so that it is closed when the test ends, passed or failed.
 */
export async function listeningSmsc(
  closeAtEnd: (close: () => Promise<void>) => void,
  options: TestSmscOptions = {},
  port?: number,
): Promise<TestSmsc> {
  const smsc = new TestSmsc(options);
  closeAtEnd(() => smsc.close());
  await smsc.listen(port);
  return smsc;
}

/** A submit_sm / deliver_sm body with the defaults every test leaves alone. */
export function shortMessage(
  fields: Partial<Omit<ShortMessage, 'tlvs'>> & { from: string; to: string; text?: string },
): Omit<ShortMessage, 'tlvs'> {
  const { from, to, text, ...rest } = fields;
  return {
    serviceType: '',
    source: { ton: 1, npi: 1, address: from },
    destination: { ton: 1, npi: 1, address: to },
    esmClass: 0,
    protocolId: 0,
    priority: 0,
    scheduleDeliveryTime: '',
    validityPeriod: '',
    registeredDelivery: 0,
    replaceIfPresent: 0,
    dataCoding: 0,
    defaultMessageId: 0,
    message: Buffer.from(text ?? '', 'latin1'),
    ...rest,
  };
}
