import type { ConfigurationChanges } from '../../network/ports/configuration-events.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { PoliciesRepository } from '../policies/policies.repository.ts';
import { refuseIfReferenced, withConstraintConflicts } from '../references.ts';
import type { Slice, SlicesRepository } from './slices.repository.ts';

interface SliceInput {
  sst: number;
  sd?: string;
}

const describeSnssai = (input: SliceInput) =>
  input.sd === undefined ? `sst ${input.sst}` : `sst ${input.sst}, sd ${input.sd.toLowerCase()}`;

export function createSlicesService(deps: {
  db: Db;
  slices: SlicesRepository;
  policies: PoliciesRepository;
  audit: AuditLogService;
  /** Told of each change once it committed. */
  changes: ConfigurationChanges;
}) {
  const { db, slices, policies, audit, changes } = deps;

  async function getIn(executor: Executor, name: string): Promise<Slice> {
    const found = await slices.findByName(name, executor);
    if (!found) throw new NotFoundError(`slice ${name} not found`);
    return found;
  }

  return {
    async list(limit: number, offset: number): Promise<{ items: Slice[]; total: number }> {
      return { items: await slices.list(limit, offset), total: await slices.count() };
    },

    get: (name: string): Promise<Slice> => getIn(db, name),

    async create(input: SliceInput & { name: string }, actor: Actor): Promise<void> {
      const duplicate = `slice ${input.name} already exists`;
      await withConstraintConflicts({ duplicate }, () =>
        db.transaction().execute(async (trx) => {
          if (await slices.findByName(input.name, trx)) throw new ConflictError(duplicate);
          await slices.insert({ name: input.name, sst: input.sst, sd: input.sd?.toLowerCase() }, trx);
          await audit.record(
            actor,
            { action: 'create_slice', details: `Slice ${input.name} created (${describeSnssai(input)})` },
            trx,
          );
        }),
      );
      changes.publish({ resource: 'slice', change: 'created', name: input.name });
    },

    async update(name: string, input: SliceInput, actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const found = await getIn(trx, name);
        await slices.update(found.id, { sst: input.sst, sd: input.sd?.toLowerCase() }, trx);
        await audit.record(
          actor,
          { action: 'update_slice', details: `Slice ${name} updated (${describeSnssai(input)})` },
          trx,
        );
      });
      changes.publish({ resource: 'slice', change: 'changed', name: name });
    },

    async delete(name: string, actor: Actor): Promise<void> {
      const reference = `cannot delete slice ${name}: a policy references it`;
      await withConstraintConflicts({ reference }, () =>
        db.transaction().execute(async (trx) => {
          const found = await getIn(trx, name);
          refuseIfReferenced(`slice ${name}`, [
            { noun: ['policy', 'policies'], ...(await policies.referencing('slice_id', found.id, trx)) },
          ]);
          await slices.delete(found.id, trx);
          await audit.record(actor, { action: 'delete_slice', details: `Slice ${name} deleted` }, trx);
        }),
      );
      changes.publish({ resource: 'slice', change: 'deleted', name: name });
    },
  };
}

export type SlicesService = ReturnType<typeof createSlicesService>;
