import { ConflictError } from '../../errors.ts';
import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { formatUtcTime } from '../../http/record-time.ts';
import { Envelope, ErrorBody, ok } from '../../http/schemas.ts';
import { backupOf } from '../../network/amf/set/served-guamis.ts';
import type { DrainRefusal } from '../../network/amf/set/member-drain.ts';
import type { AmfSetMember } from '../../network/ports/amf-set-members.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import { AmfSetDrainStarted, AmfSetView } from './amf-set.schema.ts';

/** What the routes read and do: every member with its state now, the member this process runs, its drain. */
interface AmfSetReader {
  members(): Promise<AmfSetMember[]>;
  self(): string | undefined;
  startDrain(): Promise<DrainRefusal | undefined>;
}

/** The 409's message for each reason a drain does not start. */
const REFUSED: Record<DrainRefusal, string> = {
  'not-a-member': 'this process is no member of an AMF set (N2 does not run, or it lost its membership)',
  'already-draining': 'this member is already draining',
  'no-backup': 'no other member of the AMF set is serving: nobody would take its UEs over',
};

export function amfSetRoutes(deps: { amfSet: AmfSetReader; audit: Pick<AuditLogService, 'record'> }) {
  const { amfSet, audit } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/amf-set',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['amf-set'],
          summary: 'The members of the AMF set on this database, and which one answered',
          response: { 200: Envelope(AmfSetView) },
        },
      },
      async () => {
        const members = await amfSet.members();
        return ok({
          answered_by: amfSet.self() ?? null,
          members: members.map((member) => ({
            name: member.name,
            guami: {
              mcc: member.mcc,
              mnc: member.mnc,
              amf_region_id: member.regionId,
              amf_set_id: member.setId,
              amf_pointer: member.pointer,
            },
            state: member.state,
            relative_capacity: member.relativeCapacity,
            n2_addresses: member.n2Addresses,
            last_heartbeat_at: formatUtcTime(member.heartbeatAt),
            lease_expires_at: formatUtcTime(member.leaseExpiresAt),
          })),
        });
      },
    );

    app.post(
      '/api/v1/amf-set/drain',
      {
        config: { permission: 'amf-set:drain' },
        schema: {
          tags: ['amf-set'],
          summary:
            'Drain the member that answers (TS 23.501 5.21.2.2): its radios hear AMF Status Indication (before the answer), it takes no new UE, ' +
            'its connected UEs are released to the backup, and the process exits once none is connected or after amf_drain_timeout_seconds. ' +
            'Another member is drained through its own API (or SIGUSR2). 409 when it is no member, already draining, or no other member serves.',
          response: {
            202: { ...Envelope(AmfSetDrainStarted), description: 'The drain started' },
            409: {
              ...ErrorBody,
              description: 'No member of an AMF set, already draining, or no other member serving',
            },
          },
        },
      },
      async (request, reply) => {
        // The backup as the radios will hear it, read before the drain changes this member's state.
        const members = await amfSet.members();
        const name = amfSet.self();
        // Answered once the radios were told: from the 202 on, new devices go to other members.
        const refused = await amfSet.startDrain();
        if (refused !== undefined || name === undefined)
          throw new ConflictError(REFUSED[refused ?? 'not-a-member']);
        const self = members.find((member) => member.name === name);
        const backup = self === undefined ? undefined : backupOf(self, members);
        await audit.record(actorOf(request), {
          action: 'drain_amf_set_member',
          details: `AMF set member ${name} draining; its UEs go to ${backup?.name ?? 'another member'}`,
        });
        return reply
          .code(202)
          .send(ok({ name, state: 'draining' as const, backup_amf_name: backup?.name ?? null }));
      },
    );
  };
}
