import type { ConfigurationChanges } from '../../network/ports/configuration-events.ts';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { SecretBox } from '../../crypto/secret-box.ts';
import { ConflictError, InvalidError } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { SubscribersRepository } from '../subscribers/subscribers.repository.ts';
import type { OperatorRepository, OperatorRow } from './operator.repository.ts';

interface OperatorView {
  mcc: string;
  mnc: string;
  supportedTacs: string[];
}

/** The operator as the subscriber service needs it: its PLMN and the clear Operator Code. */
export interface OperatorIdentity {
  mcc: string;
  mnc: string;
  op: Buffer;
  /** The stored sealed form, to detect an OP change between preparing and committing work. */
  opSealed: string;
}

export function createOperatorService(deps: {
  db: Db;
  operator: OperatorRepository;
  subscribers: SubscribersRepository;
  audit: AuditLogService;
  /** Told of each change once it committed. */
  changes: ConfigurationChanges;
  secretBox: SecretBox;
}) {
  const { db, operator, subscribers, audit, secretBox, changes } = deps;

  async function load(executor: Executor): Promise<OperatorRow> {
    const row = await operator.find(executor);
    // The row is created at first start (network-defaults.ts) and can never be deleted.
    if (!row) throw new Error('operator row missing: network defaults were not seeded');
    return row;
  }

  async function refuseWhileSubscribersExist(executor: Executor, what: string): Promise<void> {
    const count = await subscribers.countAll(executor);
    if (count > 0) {
      const exist = count === 1 ? '1 subscriber exists' : `${count} subscribers exist`;
      throw new ConflictError(`${what} cannot change while ${exist}; delete the subscribers first`);
    }
  }

  return {
    async get(): Promise<OperatorView> {
      const { mcc, mnc, supportedTacs } = await load(db);
      return { mcc, mnc, supportedTacs };
    },

    async identity(executor: Executor = db): Promise<OperatorIdentity> {
      const row = await load(executor);
      return {
        mcc: row.mcc,
        mnc: row.mnc,
        op: Buffer.from(secretBox.open(row.opSealed), 'hex'),
        opSealed: row.opSealed,
      };
    },

    async updateId(input: { mcc: string; mnc: string }, actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const current = await load(trx);
        // Subscribers' IMSIs start with the MCC and MNC, so the ID is frozen while any exist.
        if (current.mcc !== input.mcc || current.mnc !== input.mnc) {
          await refuseWhileSubscribersExist(trx, 'the operator ID (MCC, MNC)');
        }
        await operator.updateId(input.mcc, input.mnc, trx);
        await audit.record(
          actor,
          { action: 'update_operator_id', details: `Operator ID set to MCC ${input.mcc}, MNC ${input.mnc}` },
          trx,
        );
      });
      changes.publish({ resource: 'operator', change: 'changed', name: '' });
    },

    async updateTracking(input: { supportedTacs: string[] }, actor: Actor): Promise<void> {
      const tacs = input.supportedTacs.map((tac) => tac.toLowerCase());
      // The schema refuses repeats as written; this catches the same TAC in two letter cases.
      if (new Set(tacs).size !== tacs.length) {
        throw new InvalidError('supportedTacs must be a list of 1 to 256 different TACs');
      }
      await db.transaction().execute(async (trx) => {
        await load(trx);
        await operator.updateSupportedTacs(tacs, trx);
        await audit.record(
          actor,
          { action: 'update_operator_tracking', details: `Supported TACs set to ${tacs.join(', ')}` },
          trx,
        );
      });
      changes.publish({ resource: 'operator', change: 'changed', name: '' });
    },

    async updateCode(input: { operatorCode: string }, actor: Actor): Promise<void> {
      const op = Buffer.from(input.operatorCode, 'hex');
      const sealed = secretBox.seal(op.toString('hex'));
      await db.transaction().execute(async (trx) => {
        const current = Buffer.from(secretBox.open((await load(trx)).opSealed), 'hex');
        // Every subscriber's OPc may derive from the OP, so it is frozen while any exist.
        if (!timingSafeEqual(current, op)) await refuseWhileSubscribersExist(trx, 'the Operator Code (OP)');
        await operator.updateOpSealed(sealed, trx);
        await audit.record(
          actor,
          { action: 'update_operator_code', details: 'Operator Code (OP) changed' },
          trx,
        );
      });
      changes.publish({ resource: 'operator', change: 'changed', name: '' });
    },
  };
}

/** A fresh random Operator Code, as first start creates it. */
export function randomOperatorCode(): Buffer {
  return randomBytes(16);
}

export type OperatorService = ReturnType<typeof createOperatorService>;
