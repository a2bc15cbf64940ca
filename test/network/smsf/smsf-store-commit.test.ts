// The SMSF over the SQL store on a database file: the messages of one turn of the event loop are
// stored in one transaction, and a message is answered RP-ACK only once that transaction committed
// (issue 35: "stored durably before RP-ACK is sent, so a restart loses none"). A
// transaction that fails as a whole answers every message of it RP-ERROR #41; a statement that fails
// fails only its own message.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import pino from 'pino';
import { decodeCpMessage, decodeRpMessage, RP_CAUSE } from '../../../src/network/sms/index.ts';
import { createSmsf } from '../../../src/network/smsf/smsf.ts';
import { sqliteFileOf } from '../../../src/storage/database.ts';
import { createSmsStore } from '../../../src/storage/network-ports/sms-store.ts';
import { openStorage } from '../../../src/storage/storage.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { memorySmsSubscribers } from '../../helpers/memory-sms-store.ts';
import { IMSI_B, MSISDN_B, moCpData, smsSubmit } from '../amf/sms-steps.ts';

const SENDERS = 6;
const sender = (n: number): string => `00101000000010${n}`;

/** The RP answer the SMSF sent a sender (in CP-DATA on its transfer), if any. */
type Answer = { type: 'rp-ack' } | { type: 'rp-error'; cause: number };

function answerOf(container: Uint8Array): Answer | undefined {
  const cp = decodeCpMessage(container);
  if (!cp.ok || cp.value.type !== 'cp-data') return undefined;
  const rp = decodeRpMessage(cp.value.rpdu);
  assert.ok(rp.ok);
  if (rp.value.type === 'rp-ack') return { type: 'rp-ack' };
  if (rp.value.type === 'rp-error') return { type: 'rp-error', cause: rp.value.cause };
  return undefined;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The SMSF on the SQL store of a fresh database file; `onAnswer` sees each RP answer as it is handed to
 * the AMF (before anything else runs).
 */
async function harness(path: string, onAnswer: (supi: string, answer: Answer) => void = () => {}) {
  const storage = await openStorage({ path, poolSize: 1 });
  const time = new ManualTime();
  const answers = new Map<string, Answer>();
  const logged: string[] = [];
  const entries: Record<string, { msisdn: string; smsAllowed: boolean }> = {
    [IMSI_B]: { msisdn: MSISDN_B, smsAllowed: true },
  };
  for (let n = 0; n < SENDERS; n++) entries[sender(n)] = { msisdn: `1555000010${n}`, smsAllowed: true };
  const smsf = createSmsf({
    amf: {
      transfer: async (supi, container) => {
        const answer = answerOf(container);
        if (answer !== undefined && supi !== IMSI_B) {
          onAnswer(supi, answer);
          answers.set(supi, answer);
        }
        return 'sent';
      },
    },
    store: createSmsStore({ db: storage.db }),
    subscribers: memorySmsSubscribers(entries),
    timers: time,
    clock: time,
    logger: pino({ level: 'error' }, { write: (line: string) => void logged.push(line) }),
  });
  /** Every sender submits one message to B in the same turn; `reference` gives each its TP-MR. */
  async function submitAll(reference: (n: number) => number): Promise<Map<string, Answer>> {
    for (let n = 0; n < SENDERS; n++)
      smsf.uplinkSms(
        sender(n),
        moCpData(0, n, smsSubmit(MSISDN_B, `hello ${n}`, { messageReference: reference(n) })),
      );
    for (let i = 0; i < 100 && answers.size < SENDERS; i++) await turn();
    return answers;
  }
  const stored = (): number[] =>
    (
      sqliteFileOf(storage.db)
        .prepare('select message_reference from sms_messages order by message_reference')
        .all() as { message_reference: number }[]
    ).map((row) => row.message_reference);
  return { storage, smsf, submitAll, stored, logged };
}

describe('SMSF: messages stored in one transaction a turn, acknowledged after its commit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-smsf-commit-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers RP-ACK only once the message is on disk, and a restart after it loses none', async () => {
    const path = join(dir, 'durable.db');
    const seen: number[] = [];
    let reader: SQLite.Database | undefined;
    const h = await harness(path, (_supi, answer) => {
      assert.equal(answer.type, 'rp-ack');
      // Another connection sees what is committed: at each RP-ACK, its message must be there already.
      reader ??= new SQLite(path, { readonly: true });
      const count = reader
        .prepare("select count(*) as n from sms_messages where status = 'queued'")
        .get() as {
        n: number;
      };
      seen.push(count.n);
    });
    const answers = await h.submitAll((n) => 10 + n);
    reader?.close();
    assert.equal(answers.size, SENDERS);
    assert.ok(
      seen.every((count) => count === SENDERS),
      `committed at each RP-ACK: ${seen.join(', ')}`,
    );
    // The process stops before any delivery: every acknowledged message is still queued after it.
    h.smsf.stop();
    await h.storage.close();
    const again = await openStorage({ path, poolSize: 1 });
    try {
      const queued = await createSmsStore({ db: again.db }).queuedFor(IMSI_B, 100);
      assert.deepEqual(
        queued.map((m) => m.messageReference),
        Array.from({ length: SENDERS }, (_, n) => 10 + n),
      );
    } finally {
      await again.close();
    }
  });

  it('answers RP-ERROR #41 to every message of a transaction whose commit fails, and stores none', async () => {
    const h = await harness(join(dir, 'commit-fails.db'));
    try {
      // A deferred foreign key is checked at COMMIT: the message with TP-MR 99 makes its transaction's
      // commit fail, whichever statement of it wrote the row.
      sqliteFileOf(h.storage.db).connection().exec(`
        create table test_parent (id integer primary key);
        create table test_child (parent integer references test_parent(id) deferrable initially deferred);
        create trigger test_commit_fails after insert on sms_messages when new.message_reference = 99
        begin insert into test_child values (1); end;`);
      const answers = await h.submitAll((n) => (n === 2 ? 99 : 20 + n));
      assert.equal(answers.size, SENDERS);
      for (const [supi, answer] of answers)
        assert.deepEqual(answer, { type: 'rp-error', cause: RP_CAUSE.temporaryFailure }, supi);
      assert.deepEqual(h.stored(), []);
    } finally {
      h.smsf.stop();
      await h.storage.close();
    }
  });

  it('fails only the message whose own statement fails, the others of its transaction are stored', async () => {
    const h = await harness(join(dir, 'statement-fails.db'));
    try {
      sqliteFileOf(h.storage.db).connection().exec(`
        create trigger test_statement_fails before insert on sms_messages when new.message_reference = 98
        begin select raise(abort, 'refused by the test'); end;`);
      const answers = await h.submitAll((n) => (n === 3 ? 98 : 30 + n));
      assert.equal(answers.size, SENDERS);
      for (let n = 0; n < SENDERS; n++)
        assert.deepEqual(
          answers.get(sender(n)),
          n === 3 ? { type: 'rp-error', cause: RP_CAUSE.temporaryFailure } : { type: 'rp-ack' },
          sender(n),
        );
      assert.deepEqual(h.stored(), [30, 31, 32, 34, 35]);
    } finally {
      h.smsf.stop();
      await h.storage.close();
    }
  });
});
