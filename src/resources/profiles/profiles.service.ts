import type { ConfigurationChanges } from '../../network/ports/configuration-events.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import type { PoliciesRepository } from '../policies/policies.repository.ts';
import { refuseIfReferenced, withConstraintConflicts } from '../references.ts';
import type { SubscribersRepository } from '../subscribers/subscribers.repository.ts';
import type { Profile, ProfilesRepository } from './profiles.repository.ts';

export type ProfileInput = Omit<Profile, 'id' | 'name'>;

/** The pools as audit details name them. */
const poolsText = (input: ProfileInput): string =>
  `ue-ip-pool ${input.ueIpPool}${input.ueIpv6Pool === undefined ? '' : `, ue-ipv6-pool ${input.ueIpv6Pool}`}`;

export function createProfilesService(deps: {
  db: Db;
  profiles: ProfilesRepository;
  policies: PoliciesRepository;
  subscribers: SubscribersRepository;
  audit: AuditLogService;
  /** Told of each change once it committed. */
  changes: ConfigurationChanges;
}) {
  const { db, profiles, policies, subscribers, audit, changes } = deps;

  async function getIn(executor: Executor, name: string): Promise<Profile> {
    const found = await profiles.findByName(name, executor);
    if (!found) throw new NotFoundError(`profile ${name} not found`);
    return found;
  }

  return {
    list: (): Promise<Profile[]> => profiles.listAll(),

    get: (name: string): Promise<Profile> => getIn(db, name),

    async create(input: ProfileInput & { name: string }, actor: Actor): Promise<void> {
      const duplicate = `profile ${input.name} already exists`;
      await withConstraintConflicts({ duplicate }, () =>
        db.transaction().execute(async (trx) => {
          if (await profiles.findByName(input.name, trx)) throw new ConflictError(duplicate);
          await profiles.insert(input, trx);
          await audit.record(
            actor,
            {
              action: 'create_profile',
              details: `Profile ${input.name} created (${poolsText(input)}, dns ${input.dns})`,
            },
            trx,
          );
        }),
      );
      changes.publish({ resource: 'profile', change: 'created', name: input.name });
    },

    async update(name: string, input: ProfileInput, actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const found = await getIn(trx, name);
        await profiles.update(found.id, input, trx);
        await audit.record(
          actor,
          {
            action: 'update_profile',
            details: `Profile ${name} updated (${poolsText(input)}, dns ${input.dns})`,
          },
          trx,
        );
      });
      changes.publish({ resource: 'profile', change: 'changed', name });
    },

    async delete(name: string, actor: Actor): Promise<void> {
      const reference = `cannot delete profile ${name}: a subscriber or policy references it`;
      await withConstraintConflicts({ reference }, () =>
        db.transaction().execute(async (trx) => {
          const found = await getIn(trx, name);
          refuseIfReferenced(`profile ${name}`, [
            { noun: ['subscriber', 'subscribers'], ...(await subscribers.usingProfile(found.id, trx)) },
            { noun: ['policy', 'policies'], ...(await policies.referencing('profile_id', found.id, trx)) },
          ]);
          await profiles.delete(found.id, trx);
          await audit.record(actor, { action: 'delete_profile', details: `Profile ${name} deleted` }, trx);
        }),
      );
      changes.publish({ resource: 'profile', change: 'deleted', name });
    },
  };
}

export type ProfilesService = ReturnType<typeof createProfilesService>;
