import type { ConfigurationChanges } from '../../network/ports/configuration-events.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { DataNetworksRepository } from '../data-networks/data-networks.repository.ts';
import { missingReference } from '../missing-reference.ts';
import type { ProfilesRepository } from '../profiles/profiles.repository.ts';
import { withConstraintConflicts } from '../references.ts';
import type { SlicesRepository } from '../slices/slices.repository.ts';
import type { PoliciesRepository, Policy, PolicyValues } from './policies.repository.ts';

export interface PolicyInput {
  bitrateUplink: string;
  bitrateDownlink: string;
  var5qi: number;
  arp: number;
  dataNetworkName: string;
  profileName?: string;
  sliceName?: string;
}

const REFERENCE_GONE = 'a data network, profile or slice the policy names was deleted meanwhile; retry';

export function createPoliciesService(deps: {
  db: Db;
  policies: PoliciesRepository;
  dataNetworks: DataNetworksRepository;
  profiles: ProfilesRepository;
  slices: SlicesRepository;
  audit: AuditLogService;
  /** Told of each change once it committed. */
  changes: ConfigurationChanges;
}) {
  const { db, policies, dataNetworks, profiles, slices, audit, changes } = deps;

  async function getIn(executor: Executor, name: string): Promise<Policy> {
    const found = await policies.findByName(name, executor);
    if (!found) throw new NotFoundError(`policy ${name} not found`);
    return found;
  }

  /** Turns the names in the input into ids, inside the transaction that stores them. */
  async function resolve(trx: Executor, input: PolicyInput): Promise<Omit<PolicyValues, 'name'>> {
    const dataNetwork = await dataNetworks.findByName(input.dataNetworkName, trx);
    if (!dataNetwork) throw missingReference('data_network_name', 'data network', input.dataNetworkName);
    let profileId: number | null = null;
    if (input.profileName !== undefined) {
      const profile = await profiles.findByName(input.profileName, trx);
      if (!profile) throw missingReference('profile_name', 'profile', input.profileName);
      profileId = profile.id;
    }
    let sliceId: number | null = null;
    if (input.sliceName !== undefined) {
      const slice = await slices.findByName(input.sliceName, trx);
      if (!slice) throw missingReference('slice_name', 'slice', input.sliceName);
      sliceId = slice.id;
    }
    return {
      bitrateUplink: input.bitrateUplink,
      bitrateDownlink: input.bitrateDownlink,
      var5qi: input.var5qi,
      arp: input.arp,
      dataNetworkId: dataNetwork.id,
      profileId,
      sliceId,
    };
  }

  const describe = (input: PolicyInput) =>
    [
      `data network ${input.dataNetworkName}`,
      input.profileName === undefined ? 'any profile' : `profile ${input.profileName}`,
      input.sliceName === undefined ? 'any slice' : `slice ${input.sliceName}`,
    ].join(', ');

  return {
    async list(limit: number, offset: number): Promise<{ items: Policy[]; total: number }> {
      return { items: await policies.list(limit, offset), total: await policies.count() };
    },

    get: (name: string): Promise<Policy> => getIn(db, name),

    async create(input: PolicyInput & { name: string }, actor: Actor): Promise<void> {
      const duplicate = `policy ${input.name} already exists`;
      await withConstraintConflicts({ duplicate, reference: REFERENCE_GONE }, () =>
        db.transaction().execute(async (trx) => {
          if (await policies.findByName(input.name, trx)) throw new ConflictError(duplicate);
          await policies.insert({ name: input.name, ...(await resolve(trx, input)) }, trx);
          await audit.record(
            actor,
            { action: 'create_policy', details: `Policy ${input.name} created (${describe(input)})` },
            trx,
          );
        }),
      );
      changes.publish({ resource: 'policy', change: 'created', name: input.name });
    },

    async update(name: string, input: PolicyInput, actor: Actor): Promise<void> {
      await withConstraintConflicts({ reference: REFERENCE_GONE }, () =>
        db.transaction().execute(async (trx) => {
          const found = await getIn(trx, name);
          await policies.update(found.id, await resolve(trx, input), trx);
          await audit.record(
            actor,
            { action: 'update_policy', details: `Policy ${name} updated (${describe(input)})` },
            trx,
          );
        }),
      );
      changes.publish({ resource: 'policy', change: 'changed', name });
    },

    async delete(name: string, actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const found = await getIn(trx, name);
        await policies.delete(found.id, trx);
        await audit.record(actor, { action: 'delete_policy', details: `Policy ${name} deleted` }, trx);
      });
      changes.publish({ resource: 'policy', change: 'deleted', name });
    },
  };
}

export type PoliciesService = ReturnType<typeof createPoliciesService>;
