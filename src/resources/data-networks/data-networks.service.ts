import type { ConfigurationChanges } from '../../network/ports/configuration-events.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { NetworkState } from '../../network/network-state.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { PoliciesRepository } from '../policies/policies.repository.ts';
import { refuseIfReferenced, withConstraintConflicts } from '../references.ts';
import type { DataNetwork, DataNetworksRepository } from './data-networks.repository.ts';

export interface DataNetworkView {
  name: string;
  /** PDU sessions towards it now, from the network state. */
  sessions: number;
}

export function createDataNetworksService(deps: {
  db: Db;
  dataNetworks: DataNetworksRepository;
  policies: PoliciesRepository;
  audit: AuditLogService;
  /** Told of each change once it committed. */
  changes: ConfigurationChanges;
  state: NetworkState;
}) {
  const { db, dataNetworks, policies, audit, state, changes } = deps;

  const view = (dataNetwork: DataNetwork): DataNetworkView => ({
    name: dataNetwork.name,
    sessions: state.sessionsOnDataNetwork(dataNetwork.name),
  });

  async function getIn(executor: Executor, name: string): Promise<DataNetwork> {
    const found = await dataNetworks.findByName(name, executor);
    if (!found) throw new NotFoundError(`data network ${name} not found`);
    return found;
  }

  async function refuseDuplicate(executor: Executor, name: string): Promise<void> {
    if (await dataNetworks.findByName(name, executor)) {
      throw new ConflictError(`data network ${name} already exists`);
    }
  }

  return {
    async list(limit: number, offset: number): Promise<{ items: DataNetworkView[]; total: number }> {
      const items = await dataNetworks.list(limit, offset);
      return { items: items.map(view), total: await dataNetworks.count() };
    },

    get: async (name: string): Promise<DataNetworkView> => view(await getIn(db, name)),

    async create(input: { name: string }, actor: Actor): Promise<void> {
      const duplicate = `data network ${input.name} already exists`;
      await withConstraintConflicts({ duplicate }, () =>
        db.transaction().execute(async (trx) => {
          await refuseDuplicate(trx, input.name);
          await dataNetworks.insert(input.name, trx);
          await audit.record(
            actor,
            { action: 'create_data_network', details: `Data network ${input.name} created` },
            trx,
          );
        }),
      );
      changes.publish({ resource: 'data-network', change: 'created', name: input.name });
    },

    /** Renames the data network; policies follow, since they reference it by id. */
    async update(name: string, input: { name: string }, actor: Actor): Promise<void> {
      const duplicate = `data network ${input.name} already exists`;
      await withConstraintConflicts({ duplicate }, () =>
        db.transaction().execute(async (trx) => {
          const found = await getIn(trx, name);
          if (input.name !== name) await refuseDuplicate(trx, input.name);
          await dataNetworks.rename(found.id, input.name, trx);
          const details =
            input.name === name
              ? `Data network ${name} updated`
              : `Data network ${name} renamed to ${input.name}`;
          await audit.record(actor, { action: 'update_data_network', details }, trx);
        }),
      );
      changes.publish({ resource: 'data-network', change: 'changed', name: input.name, previousName: name });
    },

    async delete(name: string, actor: Actor): Promise<void> {
      const reference = `cannot delete data network ${name}: a policy references it`;
      await withConstraintConflicts({ reference }, () =>
        db.transaction().execute(async (trx) => {
          const found = await getIn(trx, name);
          refuseIfReferenced(`data network ${name}`, [
            {
              noun: ['policy', 'policies'],
              ...(await policies.referencing('data_network_id', found.id, trx)),
            },
          ]);
          await dataNetworks.delete(found.id, trx);
          await audit.record(
            actor,
            { action: 'delete_data_network', details: `Data network ${name} deleted` },
            trx,
          );
        }),
      );
      changes.publish({ resource: 'data-network', change: 'deleted', name });
    },
  };
}

export type DataNetworksService = ReturnType<typeof createDataNetworksService>;
