import type { App } from '../../http/app-types.ts';
import { formatUtcTime } from '../../http/record-time.ts';
import { Envelope, ok, Paginated, paginated, PaginationQuery, pageWindow } from '../../http/schemas.ts';
import { RadioDetail, RadioListItem, RadioParams } from './radios.schema.ts';
import type { RadiosService } from './radios.service.ts';

export function radiosRoutes(deps: { radios: RadiosService }) {
  const { radios } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/ran/radios',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['radios'],
          summary: 'Radios (RAN nodes) connected now to any member of the AMF set, by name',
          querystring: PaginationQuery,
          response: { 200: Envelope(Paginated(RadioListItem)) },
        },
      },
      async (request) => {
        const { limit, offset } = pageWindow(request.query);
        const { items, total } = await radios.list(limit, offset);
        const shaped = items.map((radio) => ({
          name: radio.name,
          id: radio.id,
          address: radio.address,
          supported_tais: radio.supportedTais,
        }));
        return ok(paginated(shaped, total, request.query));
      },
    );

    app.get(
      '/api/v1/ran/radios/:name',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['radios'],
          summary: 'One connected radio, by name (or by id)',
          params: RadioParams,
          response: { 200: Envelope(RadioDetail) },
        },
      },
      async (request) => {
        const radio = await radios.get(request.params.name);
        return ok({
          name: radio.name,
          id: radio.id,
          address: radio.address,
          connected_at: formatUtcTime(radio.connectedAt),
          last_seen_at: formatUtcTime(radio.lastSeenAt),
          ran_node_type: radio.ranNodeType,
          supported_tais: radio.supportedTais,
          // A member of an earlier release wrote no list: its radio's one association.
          associations: radio.associations ?? [{ address: radio.address, usage: 'both' }],
          amf_name: radio.amf ?? null,
        });
      },
    );
  };
}
