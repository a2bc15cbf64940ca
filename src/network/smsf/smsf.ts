import type { Logger } from 'pino';
import type { Clock, Timers } from '../../clock.ts';
import {
  CP_CAUSE,
  cpCauseLabel,
  decodeCpMessage,
  decodeDcs,
  decodeRpMessage,
  encodeCpMessage,
  RP_CAUSE,
  rpCauseLabel,
  type CpMessage,
  type RpMessage,
  type Tpdu,
} from '../sms/index.ts';
import type { SmsStore, SmsSubscribers, StoredSms } from '../ports/sms-store.ts';
import type { SmsfAmfPort } from './ports/amf.ts';
import type { SmsfSmscPort } from './ports/smsc.ts';
import {
  rpAckToUe,
  rpDataToUe,
  rpErrorToUe,
  smsDeliverOf,
  statusReportOf,
  TP_STATUS,
} from './relay-messages.ts';
import { DEFAULT_SMSF_SETTINGS, type SmsfSettings } from './smsf-settings.ts';
import { submission } from './submission.ts';
import { CP_IDLE, RP_IDLE, enterCp, enterRp, type CpState, type RpState } from './transfer-state.ts';

interface SmsfOptions {
  /** The AMF's N1N2 message transfer (ports/amf.ts). */
  amf: SmsfAmfPort;
  store: SmsStore;
  subscribers: SmsSubscribers;
  /** The SMSC link for numbers outside the network (ports/smsc.ts); without, they are refused (#1). */
  smsc?: SmsfSmscPort;
  timers: Timers;
  clock: Clock;
  logger: Logger;
  settings?: Partial<SmsfSettings>;
}

/** What an MT transfer carries: a stored message, or a status report for its sender (kept in memory). */
type Delivery = { kind: 'message'; message: StoredSms } | { kind: 'report'; report: Tpdu };

/** One short message transfer with a UE: a CP transaction (TS 24.011 5) and its RP exchange (6). */
interface Transfer {
  readonly direction: 'mo' | 'mt';
  /** The transaction identifier (TS 24.007 11.2.3.1.3): the UE's for MO, the SMSF's for MT. */
  readonly ti: number;
  cp: CpState;
  rp: RpState;
  readonly delivery?: Delivery;
}

interface SmsfUe {
  readonly supi: string;
  /** SMS over NAS activated by the AMF (Nsmsf_SMService_Activate) and allowed by the profile. */
  active: boolean;
  /** Transfers in progress, by `mo:<ti>` and `mt:<ti>`. */
  readonly transfers: Map<string, Transfer>;
  /** The MT transfer in progress ('loading' while the next page is read): one at a time per UE. */
  mt: Transfer | 'loading' | undefined;
  /** The UE's queue as read from the store, a page at a time, oldest first: what is left of the page. */
  page: StoredSms[];
  /** The id of the last message read into `page`: the next page starts after it while `pageFull`. */
  after: number;
  /** The last page read was full: more may wait after `after`. */
  pageFull: boolean;
  /** A message may have been queued since the last read began: read again once the page is spent. */
  recheck: boolean;
  nextTi: number;
  nextMessageReference: number;
  /** The UE answered RP-ERROR #22: nothing more is sent until its RP-SMMA (TS 24.011 7.3.2, TS 23.040 10.3). */
  memoryFull: boolean;
  /** Status reports for this UE, waiting for it (not stored: docs/sms.md). */
  readonly reports: Tpdu[];
  /** The UE's uplink containers, handled one after the other. */
  work: Promise<void>;
}

const keyOf = (direction: 'mo' | 'mt', ti: number): string => `${direction}:${ti}`;

/**
 * The SMSF (TS 23.502 4.13, docs/sms.md): the SM relay of TS 24.011 over NAS towards the UEs the AMF
 * serves, and the store that holds each message until its recipient takes it. Mobile-originated: the
 * UE's CP-DATA is acknowledged (CP-ACK), its RP-DATA checked (profile, TPDU, recipient), the message
 * stored durably and only then acknowledged (RP-ACK). Mobile-terminated: stored messages go to their
 * recipient one at a time, as SMS-DELIVER in RP-DATA, paged by the AMF when it is idle; its RP-ACK
 * marks them delivered. A message not delivered stays queued for the recipient's next registration or
 * Service Request until its validity period ends.
 */
export function createSmsf(options: SmsfOptions) {
  const settings: SmsfSettings = { ...DEFAULT_SMSF_SETTINGS, ...options.settings };
  const { amf, store, timers, clock, logger } = options;
  const ues = new Map<string, SmsfUe>();

  function contextOf(supi: string): SmsfUe {
    let ue = ues.get(supi);
    if (ue === undefined) {
      ue = {
        supi,
        active: false,
        transfers: new Map(),
        mt: undefined,
        page: [],
        after: 0,
        pageFull: false,
        recheck: true,
        nextTi: 0,
        nextMessageReference: 0,
        memoryFull: false,
        reports: [],
        work: Promise.resolve(),
      };
      ues.set(supi, ue);
    }
    return ue;
  }

  const failed = (supi: string) => (error: unknown) =>
    logger.error({ err: error, supi }, 'SMSF: a short message transfer failed');

  /**
   * Deliveries' outcomes still being written, by recipient. Its queue is read again only after them
   * (also after a new registration): with a pool of connections a read can overtake a write, and a
   * delivered message would be sent twice.
   */
  const settling = new Map<string, Promise<void>>();

  function settle(ue: SmsfUe, id: number, outcome: Parameters<SmsStore['settle']>[1]): void {
    const { supi } = ue;
    const written: Promise<void> = Promise.all([
      settling.get(supi),
      store.settle(id, outcome).catch(failed(supi)),
    ]).then(() => {
      if (settling.get(supi) === written) settling.delete(supi);
    });
    settling.set(supi, written);
  }

  /** Sends a CP message; a CP-ACK or CP-ERROR needs no outcome (the peer's timer repeats what it needs). */
  function sendCp(ue: SmsfUe, message: CpMessage): void {
    void amf.transfer(ue.supi, encodeCpMessage(message)).catch(failed(ue.supi));
  }

  /** Sends CP-DATA and waits for its CP-ACK under TC1* (TS 24.011 5.3.2.1), repeating it on expiry. */
  function sendCpData(
    ue: SmsfUe,
    transfer: Transfer,
    name: 'mo-wait-for-cp-ack' | 'mt-wait-for-cp-ack',
    cpData: Uint8Array,
    retransmissions = 0,
  ): void {
    const stopTc1 = timers.after(settings.tc1StarMs, () => {
      if (transfer.cp.name !== name || ue.transfers.get(keyOf(transfer.direction, transfer.ti)) !== transfer)
        return;
      if (retransmissions >= settings.cpRetransmissions) return end(ue, transfer, 'no CP-ACK after TC1*');
      sendCpData(ue, transfer, name, cpData, retransmissions + 1);
    });
    enterCp(transfer, { name, cpData, retransmissions, stopTc1 });
    void amf
      .transfer(ue.supi, cpData)
      .then((outcome) => {
        if (
          outcome === 'unreachable' &&
          ue.transfers.get(keyOf(transfer.direction, transfer.ti)) === transfer
        )
          end(ue, transfer, 'the UE could not be reached');
      })
      .catch(failed(ue.supi));
  }

  /**
   * The transfer ends (both layers idle, timers stopped). `why` says it was given up: an MT message
   * then stays queued for the UE's next return.
   */
  function end(ue: SmsfUe, transfer: Transfer, why?: string): void {
    if (transfer.cp.name !== 'idle') enterCp(transfer, CP_IDLE);
    if (transfer.rp.name !== 'idle') enterRp(transfer, RP_IDLE);
    const key = keyOf(transfer.direction, transfer.ti);
    if (ue.transfers.get(key) === transfer) ue.transfers.delete(key);
    // An MT message given up is the operator's concern; a UE's own transfer given up is its own (and a
    // device sending garbage must not fill the log).
    if (why !== undefined)
      logger[transfer.direction === 'mt' ? 'info' : 'debug'](
        { supi: ue.supi, direction: transfer.direction, ti: transfer.ti, message: messageIdOf(transfer) },
        `SMSF: transfer given up: ${why}`,
      );
    // An MT message's attempt given up is counted here; one answered, with its outcome (settle).
    if (why !== undefined && transfer.delivery?.kind === 'message')
      void store.attempted(transfer.delivery.message.id).catch(failed(ue.supi));
    if (ue.mt === transfer) {
      ue.mt = undefined;
      // A message given up stays queued until the UE is reachable again, and the queue is read from
      // its start then; one answered lets the next go.
      if (why === undefined) deliverNext(ue);
      else forgetPage(ue);
    }
  }

  /** The RP answer to the UE's RP-DATA or RP-SMMA goes in CP-DATA on the UE's transaction. */
  function answer(ue: SmsfUe, transfer: Transfer, rpdu: Uint8Array): void {
    const cpData = encodeCpMessage({ type: 'cp-data', transactionId: transfer.ti, tiFlag: true, rpdu });
    sendCpData(ue, transfer, 'mo-wait-for-cp-ack', cpData);
  }

  /** A CP-ERROR for a CP message that did not decode, on the TI its first octet names (TS 24.011 9.2). */
  function refuseCp(ue: SmsfUe, bytes: Uint8Array, cause: number): void {
    const first = bytes[0] ?? 0;
    const ti = (first >> 4) & 0x7;
    // TI 7 cannot be answered: it is what the error is about (#81), and no message can carry it.
    if (ti === 7) return;
    sendCp(ue, { type: 'cp-error', transactionId: ti, tiFlag: (first & 0x80) === 0, cause });
  }

  async function uplink(ue: SmsfUe, bytes: Uint8Array): Promise<void> {
    const decoded = decodeCpMessage(bytes);
    if (!decoded.ok) {
      if (decoded.cause !== undefined) refuseCp(ue, bytes, decoded.cause);
      return;
    }
    const message = decoded.value;
    // TI flag 0: the UE allocated the TI (its MO transfer); 1: the SMSF did (an MT transfer).
    const direction = message.tiFlag ? 'mt' : 'mo';
    const transfer = ue.transfers.get(keyOf(direction, message.transactionId));
    switch (message.type) {
      case 'cp-data':
        return direction === 'mo'
          ? moCpData(ue, transfer, message.transactionId, message.rpdu)
          : mtCpData(ue, transfer, message.transactionId, message.rpdu);
      case 'cp-ack':
        // TS 24.011 9.2.3: a CP-ACK on no transfer in progress is ignored.
        if (transfer === undefined) return;
        if (transfer.cp.name === 'mo-wait-for-cp-ack') return end(ue, transfer);
        if (transfer.cp.name === 'mt-wait-for-cp-ack')
          return enterCp(transfer, { name: 'mt-mm-connection-established' });
        return sendCp(ue, {
          type: 'cp-error',
          transactionId: transfer.ti,
          tiFlag: direction === 'mo',
          cause: CP_CAUSE.messageNotCompatibleWithState,
        });
      case 'cp-error':
        if (transfer !== undefined) end(ue, transfer, `CP-ERROR ${cpCauseLabel(message.cause)} from the UE`);
        return;
    }
  }

  /** CP-DATA of the UE's own transfer: CP-ACK, then its RP message (TS 24.011 5.2.2, 6.3). */
  async function moCpData(
    ue: SmsfUe,
    transfer: Transfer | undefined,
    ti: number,
    rpdu: Uint8Array,
  ): Promise<void> {
    if (transfer !== undefined) {
      // The same CP-DATA again: the UE did not hear our CP-ACK (5.3.2.1). It is acknowledged again, not
      // relayed twice.
      if (transfer.cp.name === 'mo-mm-connection-established')
        return sendCp(ue, { type: 'cp-ack', transactionId: ti, tiFlag: true });
      // A new CP-DATA while our answer waits for its CP-ACK stands for that CP-ACK (5.4).
      end(ue, transfer);
    }
    const created: Transfer = { direction: 'mo', ti, cp: CP_IDLE, rp: RP_IDLE };
    ue.transfers.set(keyOf('mo', ti), created);
    enterCp(created, { name: 'mo-mm-connection-established' });
    sendCp(ue, { type: 'cp-ack', transactionId: ti, tiFlag: true });
    return moRp(ue, created, rpdu);
  }

  /** The RP message of the UE's transfer (TS 24.011 6.3): RP-DATA submits a message, RP-SMMA frees memory. */
  async function moRp(ue: SmsfUe, transfer: Transfer, rpdu: Uint8Array): Promise<void> {
    const decoded = decodeRpMessage(rpdu);
    if (!decoded.ok) {
      if (decoded.cause === undefined) return end(ue, transfer, `RP message ignored: ${decoded.error}`);
      return answer(ue, transfer, rpErrorToUe(rpdu[1] ?? 0, decoded.cause));
    }
    const message = decoded.value;
    const reference = message.messageReference;
    if (message.direction !== 'ms-to-network')
      return answer(ue, transfer, rpErrorToUe(reference, RP_CAUSE.messageTypeNonExistent));
    switch (message.type) {
      case 'rp-data':
        return moRpData(ue, transfer, message);
      case 'rp-smma':
        // The UE has memory again (TS 24.011 7.3.2): RP-ACK, and what waits for it goes.
        ue.memoryFull = false;
        answer(ue, transfer, rpAckToUe(reference, clock.now()));
        return deliverNext(ue, true);
      default:
        // An RP-ACK or RP-ERROR belongs to an MT transfer, not to the UE's own.
        return answer(ue, transfer, rpErrorToUe(reference, RP_CAUSE.messageNotCompatibleWithState));
    }
  }

  async function moRpData(
    ue: SmsfUe,
    transfer: Transfer,
    message: Extract<RpMessage, { type: 'rp-data' }>,
  ): Promise<void> {
    const reference = message.messageReference;
    // TR2N bounds the time to answer (TS 24.011 6.3): past it the UE hears RP-ERROR #41 "temporary failure".
    const stopTr2n = timers.after(settings.tr2nMs, () => {
      if (transfer.rp.name !== 'wait-to-send-rp-ack') return;
      enterRp(transfer, RP_IDLE);
      answer(ue, transfer, rpErrorToUe(reference, RP_CAUSE.temporaryFailure));
    });
    enterRp(transfer, { name: 'wait-to-send-rp-ack', stopTr2n });
    const outcome = await submission(
      {
        store,
        subscribers: options.subscribers,
        settings,
        now: clock.now(),
        logger,
        ...(options.smsc === undefined ? {} : { smsc: options.smsc }),
      },
      ue.supi,
      message,
    );
    if (transfer.rp.name !== 'wait-to-send-rp-ack' || ue.transfers.get(keyOf('mo', transfer.ti)) !== transfer)
      return;
    enterRp(transfer, RP_IDLE);
    answer(ue, transfer, outcome.rpdu);
    if (outcome.outside === true) options.smsc?.queued();
    if (outcome.recipient !== undefined) {
      const recipient = ues.get(outcome.recipient);
      if (recipient !== undefined) storedFor(recipient, outcome.stored);
    }
  }

  /**
   * A message was stored for the UE. When the page in memory holds the whole of its queue (the last
   * read found the end, and nothing was stored for it since that read began), the message joins the
   * page: the store is not read for it (between connected devices that read was one of the six
   * statements a message cost). A page already full stays so (memory stays bounded by the page): the
   * message is read after it, as from a full page read. Otherwise the queue is read again once the page
   * is spent.
   */
  function storedFor(ue: SmsfUe, message: StoredSms | undefined): void {
    const wholeQueue = ue.active && ue.mt !== 'loading' && !ue.memoryFull && !ue.pageFull && !ue.recheck;
    if (message === undefined || !wholeQueue || message.id <= ue.after) return deliverNext(ue, true);
    if (ue.page.length >= settings.queuePage) ue.pageFull = true;
    else {
      ue.page.push(message);
      ue.after = message.id;
    }
    deliverNext(ue);
  }

  /** CP-DATA on an MT transfer: the UE's RP answer to our RP-DATA (TS 24.011 5.2.2, 6.3). */
  function mtCpData(ue: SmsfUe, transfer: Transfer | undefined, ti: number, rpdu: Uint8Array): void {
    // TS 24.011 9.2.3: CP-DATA with TI flag 1 on a TI the SMSF has no transfer on: CP-ERROR #81.
    if (transfer === undefined)
      return sendCp(ue, {
        type: 'cp-error',
        transactionId: ti,
        tiFlag: false,
        cause: CP_CAUSE.invalidTransactionIdentifier,
      });
    // CP-DATA before the CP-ACK stands for it (5.4).
    if (transfer.cp.name === 'mt-wait-for-cp-ack')
      enterCp(transfer, { name: 'mt-mm-connection-established' });
    if (transfer.cp.name !== 'mt-mm-connection-established')
      return sendCp(ue, {
        type: 'cp-error',
        transactionId: ti,
        tiFlag: false,
        cause: CP_CAUSE.messageNotCompatibleWithState,
      });
    sendCp(ue, { type: 'cp-ack', transactionId: ti, tiFlag: false });
    enterCp(transfer, CP_IDLE);
    const decoded = decodeRpMessage(rpdu);
    if (!decoded.ok || decoded.value.direction !== 'ms-to-network')
      return end(
        ue,
        transfer,
        `the UE's RP answer did not decode: ${decoded.ok ? 'wrong direction' : decoded.error}`,
      );
    const rp = decoded.value;
    if (rp.type === 'rp-ack') return mtDelivered(ue, transfer);
    if (rp.type === 'rp-error') return mtRefused(ue, transfer, rp.cause);
    return end(ue, transfer, `${rp.type} where RP-ACK or RP-ERROR was due`);
  }

  /** RP-ACK: the message is delivered; its sender hears a status report if it asked for one. */
  function mtDelivered(ue: SmsfUe, transfer: Transfer): void {
    const delivery = transfer.delivery;
    enterRp(transfer, RP_IDLE);
    if (delivery?.kind === 'message') {
      const { message } = delivery;
      const at = clock.now();
      settle(ue, message.id, { status: 'delivered', at, attempt: true });
      reportTo(message, at, TP_STATUS.received);
    }
    end(ue, transfer);
  }

  /** A status report for the message's sender, when it asked for one (TS 23.040 9.2.3.5). */
  function reportTo(message: StoredSms, at: number, status: number): void {
    if (!message.statusReportRequested || message.originatorImsi === undefined) return;
    const sender = contextOf(message.originatorImsi);
    if (sender.reports.length < settings.maxPendingReports)
      sender.reports.push(statusReportOf(message, at, status));
    deliverNext(sender);
  }

  /**
   * RP-ERROR from the UE: #22 "memory capacity exceeded" keeps the message queued until the UE's RP-SMMA
   * (TS 23.040 10.3); any other cause fails it with that cause.
   */
  function mtRefused(ue: SmsfUe, transfer: Transfer, cause: number): void {
    const delivery = transfer.delivery;
    enterRp(transfer, RP_IDLE);
    if (cause === RP_CAUSE.memoryCapacityExceeded) {
      ue.memoryFull = true;
      end(ue, transfer, 'the UE has no memory for it (RP-SMMA awaited)');
      // A class 0 message waiting behind it may still go (deliverClass0); unless this one was of class
      // 0, which the UE refused all the same.
      if (delivery?.kind !== 'message' || decodeDcs(delivery.message.dataCodingScheme).messageClass !== 0)
        deliverNext(ue);
      return;
    }
    if (delivery?.kind === 'message')
      settle(ue, delivery.message.id, {
        status: 'failed',
        cause: rpCauseLabel(cause),
        at: clock.now(),
        attempt: true,
      });
    end(ue, transfer);
  }

  /**
   * The next message for the UE, when SMS is active for it and no MT transfer is in progress: a status
   * report first, then the oldest queued message; messages past their validity are marked expired.
   * `queued` says a message may have been queued for it (stored, or the UE back): the store is read again
   * even when the last read found the end of its queue. One MT transfer at a time per UE: TS 23.040
   * 3.1 sends a recipient's messages one after the other, TP-MMS saying more follow.
   */
  function deliverNext(ue: SmsfUe, queued = false): void {
    if (queued) ue.recheck = true;
    if (!ue.active || ue.mt !== undefined) return;
    if (ue.memoryFull) return deliverClass0(ue);
    const report = ue.reports.shift();
    if (report !== undefined) return startMt(ue, { kind: 'report', report }, report);
    const now = clock.now();
    const next = takeLive(ue, now);
    if (next !== undefined) return startQueued(ue, next);
    if (!ue.pageFull && !ue.recheck) return;
    ue.mt = 'loading';
    void readPage(ue)
      .then(() => {
        if (ue.mt !== 'loading') return;
        ue.mt = undefined;
        if (!ue.active) return;
        const first = takeLive(ue, clock.now());
        if (first !== undefined) startQueued(ue, first);
        else if (ue.pageFull || ue.recheck) deliverNext(ue);
      })
      .catch((error: unknown) => {
        if (ue.mt === 'loading') ue.mt = undefined;
        forgetPage(ue);
        failed(ue.supi)(error);
      });
  }

  /**
   * While the UE's memory is full (RP-ERROR #22, until its RP-SMMA): only messages of class 0 go. TS
   * 23.038 4: the MS displays a class 0 message at once and acknowledges it "irrespective of whether
   * there is memory available"; the others wait (TS 23.040 10.3). Read one at a time: a UE out of
   * memory is rare and its class 0 messages few.
   */
  function deliverClass0(ue: SmsfUe): void {
    if (!ue.recheck) return;
    ue.recheck = false;
    ue.mt = 'loading';
    void (settling.get(ue.supi) ?? Promise.resolve())
      .then(() => store.queuedFor(ue.supi, 1, { class0: true }))
      .then(([message]) => {
        if (ue.mt !== 'loading') return;
        ue.mt = undefined;
        if (message === undefined || !ue.active) return;
        if (message.validUntil <= clock.now()) {
          settle(ue, message.id, { status: 'expired', at: clock.now() });
          return deliverNext(ue, true);
        }
        ue.recheck = true;
        startQueued(ue, message);
      })
      .catch((error: unknown) => {
        if (ue.mt === 'loading') ue.mt = undefined;
        failed(ue.supi)(error);
      });
  }

  /** The page's next message still valid; those past their validity on the way are marked expired. */
  function takeLive(ue: SmsfUe, now: number): StoredSms | undefined {
    for (let message = ue.page.shift(); message !== undefined; message = ue.page.shift()) {
      if (message.validUntil > now) return message;
      settle(ue, message.id, { status: 'expired', at: now });
    }
    return undefined;
  }

  /**
   * The UE's next page of queued messages: after the last one read while pages come full, else from the
   * start of its queue once the outcomes written so far are in (a read may not overtake them, or a
   * delivered message would be sent again).
   */
  async function readPage(ue: SmsfUe): Promise<void> {
    const after = ue.pageFull ? ue.after : 0;
    ue.recheck = false;
    if (after === 0) await settling.get(ue.supi);
    const page = await store.queuedFor(ue.supi, settings.queuePage, { after });
    ue.page = page;
    ue.pageFull = page.length === settings.queuePage;
    ue.after = page.at(-1)?.id ?? after;
  }

  /** The page is dropped: the next delivery reads the queue from its start. */
  function forgetPage(ue: SmsfUe): void {
    ue.page = [];
    ue.after = 0;
    ue.pageFull = false;
    ue.recheck = true;
  }

  function startQueued(ue: SmsfUe, message: StoredSms): void {
    const more = ue.page.length > 0 || ue.pageFull;
    startMt(ue, { kind: 'message', message }, smsDeliverOf(message, clock.now(), more));
  }

  /** RP-DATA in CP-DATA on a new MT transaction, under TR1N (TS 24.011 6.3) and TC1* (5.3.2.1). */
  function startMt(ue: SmsfUe, delivery: Delivery, tpdu: Tpdu): void {
    const ti = ue.nextTi;
    ue.nextTi = (ti + 1) % 7;
    const reference = ue.nextMessageReference;
    ue.nextMessageReference = (reference + 1) & 0xff;
    let cpData: Uint8Array;
    try {
      const rpdu = rpDataToUe(reference, settings.serviceCentre, tpdu);
      cpData = encodeCpMessage({ type: 'cp-data', transactionId: ti, tiFlag: false, rpdu });
    } catch (error) {
      // A stored message that no longer encodes (an address changed under it) cannot be delivered.
      logger.warn({ err: error, supi: ue.supi }, 'SMSF: a message could not be encoded');
      if (delivery.kind === 'message')
        settle(ue, delivery.message.id, { status: 'failed', cause: 'not encodable', at: clock.now() });
      return deliverNext(ue);
    }
    const transfer: Transfer = { direction: 'mt', ti, cp: CP_IDLE, rp: RP_IDLE, delivery };
    ue.transfers.set(keyOf('mt', ti), transfer);
    ue.mt = transfer;
    const stopTr1n = timers.after(settings.tr1nMs, () => {
      if (ue.mt === transfer) end(ue, transfer, 'no RP-ACK within TR1N');
    });
    enterRp(transfer, { name: 'wait-for-rp-ack', stopTr1n });
    sendCpData(ue, transfer, 'mt-wait-for-cp-ack', cpData);
  }

  return {
    /** Nsmsf_SMService_Activate: SMS over NAS for the UE when its profile allows it. */
    async activate(supi: string): Promise<boolean> {
      const subscription = await options.subscribers.smsSubscription(supi).catch((error: unknown) => {
        failed(supi)(error);
        return undefined;
      });
      const ue = contextOf(supi);
      ue.active = subscription?.smsAllowed === true;
      return ue.active;
    },
    /** Nsmsf_SMService_Deactivate: transfers in progress end; queued messages wait for the next activation. */
    deactivate(supi: string): void {
      const ue = ues.get(supi);
      if (ue === undefined) return;
      ue.active = false;
      for (const transfer of [...ue.transfers.values()]) end(ue, transfer, 'SMS over NAS deactivated');
      if (ue.mt === 'loading') ue.mt = undefined;
      ues.delete(supi);
    },
    /** Nsmsf_SMService_UplinkSMS: one CP message of the UE, handled after its earlier ones. */
    uplinkSms(supi: string, container: Uint8Array): void {
      const ue = contextOf(supi);
      ue.work = ue.work.then(() => uplink(ue, container)).catch(failed(supi));
    },
    /** The UE is reachable: what waits for it goes now. */
    ueReachable(supi: string): void {
      const ue = ues.get(supi);
      if (ue !== undefined) deliverNext(ue, true);
    },
    /**
     * The SMSC link settled a message for a number outside the network: its sender hears a status
     * report when it asked for one (TP-ST 0 delivered, 0x46 expired, 0x40 failed).
     */
    settledOutside(message: StoredSms, outcome: { status: 'delivered' | 'failed' | 'expired'; at: number }) {
      const status =
        outcome.status === 'delivered'
          ? TP_STATUS.received
          : outcome.status === 'expired'
            ? TP_STATUS.validityPeriodExpired
            : TP_STATUS.remoteProcedureError;
      reportTo(message, outcome.at, status);
    },
    /** Every transfer ends and its timers stop (the process stops); stored messages stay queued. */
    stop(): void {
      for (const ue of ues.values()) {
        ue.active = false;
        for (const transfer of [...ue.transfers.values()]) end(ue, transfer);
      }
      ues.clear();
    },
  };
}

export type Smsf = ReturnType<typeof createSmsf>;

function messageIdOf(transfer: Transfer): number | undefined {
  return transfer.delivery?.kind === 'message' ? transfer.delivery.message.id : undefined;
}
