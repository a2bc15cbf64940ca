import type {
  NewSms,
  SmscOutbox,
  SmsStore,
  SmsSubscribers,
  StoredSms,
} from '../../src/network/ports/sms-store.ts';
import { decodeDcs } from '../../src/network/sms/index.ts';

/**
 * The SMSF's store in memory, as the SQL one behaves (storage/network-ports/sms-store.ts): ids in
 * order, queued messages oldest first, only a queued message settles. `hold()` makes the next saves
 * wait until the function it returns is called, so a test sees what the SMSF does before a message
 * is stored; `holdSettles()` does the same for settles (a write another connection has not committed
 * yet, as on PostgreSQL's pool); `failSaves` makes saves fail.
 */
export function memorySmsStore(): SmsStore & {
  messages: StoredSms[];
  hold(): () => void;
  holdSettles(): () => void;
  failSaves: boolean;
} {
  const messages: StoredSms[] = [];
  let held: Promise<void> | undefined;
  let settlesHeld: Promise<void> | undefined;
  const holder = (set: (gate: Promise<void> | undefined) => void) => (): (() => void) => {
    let release = (): void => undefined;
    set(new Promise<void>((resolve) => (release = resolve)));
    return () => {
      set(undefined);
      release();
    };
  };
  const store = {
    messages,
    failSaves: false,
    hold: holder((gate) => {
      held = gate;
    }),
    holdSettles: holder((gate) => {
      settlesHeld = gate;
    }),
    async save(message: NewSms): Promise<StoredSms> {
      if (held !== undefined) await held;
      if (store.failSaves) throw new Error('the disk is full');
      const stored: StoredSms = {
        ...structuredClone(message),
        id: messages.length + 1,
        status: 'queued',
        attempts: 0,
      };
      messages.push(stored);
      return structuredClone(stored);
    },
    async queuedFor(
      imsi: string,
      limit: number,
      options: { after?: number; class0?: boolean } = {},
    ): Promise<StoredSms[]> {
      return messages
        .filter((m) => m.destinationImsi === imsi && m.status === 'queued' && m.id > (options.after ?? 0))
        .filter((m) => options.class0 !== true || decodeDcs(m.dataCodingScheme).messageClass === 0)
        .slice(0, limit)
        .map((m) => structuredClone(m));
    },
    async attempted(id: number): Promise<void> {
      const found = messages.find((m) => m.id === id);
      if (found !== undefined) found.attempts++;
    },
    async settle(id: number, outcome: Parameters<SmsStore['settle']>[1]): Promise<void> {
      if (settlesHeld !== undefined) await settlesHeld;
      const found = messages.find((m) => m.id === id);
      if (found === undefined || found.status !== 'queued') return;
      found.status = outcome.status;
      if (outcome.cause !== undefined) found.cause = outcome.cause;
      if (outcome.attempt === true) found.attempts++;
    },
  };
  return store;
}

/** Subscribers' SMS data in memory: IMSI -> MSISDN and whether the profile allows SMS. */
export function memorySmsSubscribers(
  entries: Record<string, { msisdn?: string; smsAllowed: boolean }>,
): SmsSubscribers & { entries: typeof entries } {
  return {
    entries,
    async imsiOf(msisdn) {
      return Object.entries(entries).find(([, entry]) => entry.msisdn === msisdn)?.[0];
    },
    async smsSubscription(imsi) {
      const entry = entries[imsi];
      return entry === undefined ? undefined : { ...entry };
    },
  };
}

/** The SMSC link's view of a memory store (storage/network-ports/sms-store.ts `createSmscOutbox`). */
export function memorySmscOutbox(store: { messages: StoredSms[] }): SmscOutbox {
  const queuedOutside = (m: StoredSms) => m.destinationImsi === undefined && m.status === 'queued';
  return {
    async awaitingSubmission(limit) {
      return store.messages
        .filter((m) => queuedOutside(m) && m.smscMessageId === undefined)
        .slice(0, limit)
        .map((m) => structuredClone(m));
    },
    async claim(id) {
      const found = store.messages.find((m) => m.id === id && queuedOutside(m));
      if (found === undefined || found.smscMessageId !== undefined) return false;
      found.smscMessageId = '';
      return true;
    },
    async release(id) {
      const found = store.messages.find((m) => m.id === id && m.smscMessageId === '');
      if (found !== undefined) delete found.smscMessageId;
    },
    async submitted(id, smscMessageId) {
      const found = store.messages.find((m) => m.id === id && m.status === 'queued');
      if (found !== undefined) found.smscMessageId = smscMessageId;
    },
    async bySmscMessageId(smscMessageId) {
      if (smscMessageId === '') return undefined;
      const found = store.messages.findLast(
        (m) => m.smscMessageId === smscMessageId && m.status === 'queued',
      );
      return found === undefined ? undefined : structuredClone(found);
    },
  };
}
