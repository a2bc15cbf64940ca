import type { App } from '../../http/app-types.ts';
import { formatUtcTime } from '../../http/record-time.ts';
import { Envelope, ok } from '../../http/schemas.ts';
import type { AmfSetMember } from '../../network/ports/amf-set-members.ts';
import { AmfSetView } from './amf-set.schema.ts';

/** What the route reads: every member with its state now, and the member this process runs. */
export interface AmfSetReader {
  members(): Promise<AmfSetMember[]>;
  self(): string | undefined;
}

export function amfSetRoutes(deps: { amfSet: AmfSetReader }) {
  const { amfSet } = deps;

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
  };
}
