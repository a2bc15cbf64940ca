// The stores on one SQLite database share its turn transaction (storage/turn-transaction.ts): the writes
// of one turn of the event loop, whichever store asked, commit once, and a write that fails fails alone.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { sqliteFileOf } from '../../src/storage/database.ts';
import { createAuthenticationData } from '../../src/storage/network-ports/authentication-data.ts';
import { createUeContextStore } from '../../src/storage/network-ports/ue-context-store.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { ueContextRecord } from '../network/working-state/ue-context-store.contract.ts';

const IMSI = '001010000000042';
const secretBox = createSecretBox(randomBytes(32));

/**
 * Transactions committed to the WAL since it was last emptied: its frames that end a commit (a non-zero
 * database size in the frame header) and belong to its current generation (the header's salts).
 */
function walCommits(path: string): number {
  const wal = readFileSync(`${path}-wal`);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  let commits = 0;
  for (let frame = 32; frame + 24 + pageSize <= wal.length; frame += 24 + pageSize) {
    if (wal.readUInt32BE(frame + 8) !== salts[0] || wal.readUInt32BE(frame + 12) !== salts[1]) break;
    if (wal.readUInt32BE(frame + 4) !== 0) commits += 1;
  }
  return commits;
}

describe('the stores of one SQLite database in one turn transaction', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-turn-stores-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let storage: Storage;
  let path: string;
  let databases = 0;

  beforeEach(async () => {
    path = join(dir, `core-${++databases}.db`);
    storage = await openStorage({ path, poolSize: 1 });
    const { id } = await storage.db
      .insertInto('profiles')
      .values({
        name: 'p',
        ue_ip_pool: '10.45.0.0/16',
        dns: '8.8.8.8',
        mtu: 1400,
        bitrate_uplink: '100 Mbps',
        bitrate_downlink: '100 Mbps',
        var5qi: 9,
        priority_level: 90,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await storage.db
      .insertInto('subscribers')
      .values({
        imsi: IMSI,
        profile_id: id,
        key_sealed: secretBox.seal('465b5ce8b199b49faa5f0a2ee238a6bc'),
        opc_sealed: secretBox.seal('cd63cb71954a9f4e48a5994e37a02baf'),
        sequence_number: '000000000020',
        created_at: 1,
      })
      .execute();
  });
  afterEach(() => storage.close());

  const stores = () => ({
    authenticationData: createAuthenticationData({
      db: storage.db,
      secretBox,
      subscribers: { updateSequenceNumber: () => Promise.resolve(true) },
    }),
    ueContexts: createUeContextStore({ db: storage.db, secretBox }),
  });
  const storedSqn = () =>
    (
      sqliteFileOf(storage.db)
        .prepare('select sequence_number from subscribers where imsi = ?')
        .get(IMSI) as {
        sequence_number: string;
      }
    ).sequence_number;

  it('commits an SQN generation and UE context writes asked for in one turn once', async () => {
    const { authenticationData, ueContexts } = stores();
    // The WAL emptied: every commit from here on is counted.
    sqliteFileOf(storage.db).connection().pragma('wal_checkpoint(TRUNCATE)');
    assert.equal(walCommits(path), 0);
    const [generated, first, second] = await Promise.all([
      authenticationData.generateAuthenticationData(IMSI),
      ueContexts.takeOver(ueContextRecord('001010000000001'), 'any'),
      ueContexts.takeOver(ueContextRecord('001010000000002'), 'any'),
    ]);
    assert.equal(generated?.sqn.toString('hex'), '000000000041');
    assert.deepEqual([first, second], [1, 1]);
    assert.equal(walCommits(path), 1);
  });

  it("fails one store's write alone: another store's writes of its transaction commit", async () => {
    const { authenticationData, ueContexts } = stores();
    const guti = { mcc: '001', mnc: '01', amfRegionId: 1, amfSetId: 1, amfPointer: 0, tmsi: 7 };
    await ueContexts.takeOver(ueContextRecord('001010000000001'), 'any');
    await ueContexts.takeOver(ueContextRecord('001010000000002', { guti }), 'any');
    // It frees the 5G-TMSI from the second UE, then its write fails (an owner SQLite cannot bind).
    const broken = ueContextRecord('001010000000001', { guti, owner: {} as unknown as string });
    const [before, failed, after] = await Promise.allSettled([
      authenticationData.generateAuthenticationData(IMSI),
      ueContexts.put(broken),
      authenticationData.generateAuthenticationData(IMSI),
    ]);
    assert.equal(failed.status, 'rejected');
    assert.equal(before.status === 'fulfilled' && before.value?.sqn.toString('hex'), '000000000041');
    assert.equal(after.status === 'fulfilled' && after.value?.sqn.toString('hex'), '000000000062');
    assert.equal(storedSqn(), '000000000062');
    assert.equal((await ueContexts.findByGuti(guti))?.supi, '001010000000002', 'the freed 5G-TMSI came back');
  });
});
