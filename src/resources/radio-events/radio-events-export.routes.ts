import { Readable } from 'node:stream';
import { InvalidError } from '../../errors.ts';
import type { App } from '../../http/app-types.ts';
import { timestampWindowOf } from '../../http/record-query.ts';
import { ErrorBody, FileResponse } from '../../http/schemas.ts';
import { PCAPNG_MEDIA_TYPE } from './pcapng.ts';
import type { RadioEventsExport } from './radio-events-export.ts';
import { RadioEventExportQuery } from './radio-events.schema.ts';

/** `GET /api/v1/ran/events/export.pcapng`: the radio events' NGAP messages as a capture for Wireshark. */
export function radioEventsExportRoutes(deps: { radioEventsExport: RadioEventsExport }) {
  const { radioEventsExport } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/ran/events/export.pcapng',
      {
        config: { permission: 'records:read' },
        schema: {
          tags: ['radios'],
          summary: 'Radio events as a pcapng capture, oldest first',
          description:
            'The NGAP messages the list’s filters select, each as an IP packet carrying SCTP with one ' +
            'DATA chunk (PPID 60), from the radio’s address to the AMF’s N2 address (the reverse when ' +
            `outbound), with its timestamp. At most ${radioEventsExport.maxRows} events: 400 past that ` +
            'bound, before anything is sent. A radio not connected now shows as 0.0.0.0 port 0 ' +
            '(docs/api.md).',
          querystring: RadioEventExportQuery,
          response: {
            200: FileResponse('A pcapng file (raw IP link type)', PCAPNG_MEDIA_TYPE),
            400: ErrorBody,
          },
        },
      },
      async (request, reply) => {
        const { protocol, direction, message_type: messageType, imsi, radio } = request.query;
        if (protocol !== undefined && protocol !== 'NGAP') {
          throw new InvalidError('protocol must be NGAP: the export carries NGAP messages only');
        }
        const blocks = await radioEventsExport.open({
          direction,
          messageType,
          imsi,
          radio,
          ...timestampWindowOf(request.query),
        });
        return reply
          .type(PCAPNG_MEDIA_TYPE)
          .header('content-disposition', 'attachment; filename="radio-events.pcapng"')
          .send(Readable.from(blocks, { objectMode: false }));
      },
    );
  };
}
