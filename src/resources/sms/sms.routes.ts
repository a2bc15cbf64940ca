import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { timestampWindowOf } from '../../http/record-query.ts';
import { formatRecordTimestamp } from '../../http/record-time.ts';
import {
  Envelope,
  message,
  MessageResult,
  ok,
  Paginated,
  paginated,
  pageWindow,
} from '../../http/schemas.ts';
import { decodeDcs, decodeUserData } from '../../network/sms/index.ts';
import type { SmsRecord } from './sms.repository.ts';
import { SendSmsBody, SmsItem, SmsQuery, SmsSent } from './sms.schema.ts';
import type { SmsService } from './sms.service.ts';

/** A part as the API shows it: its text when its TP-DCS says text (header left out), else its octets. */
function toItem(record: SmsRecord) {
  const content = decodeUserData(
    { headerIndicator: record.userDataHeader, length: record.userDataLength, bytes: record.userData },
    decodeDcs(record.dataCodingScheme),
  );
  const text = content.ok ? content.value.text : undefined;
  return {
    id: record.id,
    created_at: formatRecordTimestamp(record.createdAt),
    updated_at: formatRecordTimestamp(record.updatedAt),
    direction:
      record.originatorImsi === null ? ('network-originated' as const) : ('mobile-originated' as const),
    from: record.originator,
    from_imsi: record.originatorImsi,
    to_imsi: record.destinationImsi,
    to_msisdn: record.destinationMsisdn,
    ...(text === undefined
      ? {
          data: Buffer.from(content.ok ? (content.value.data ?? record.userData) : record.userData).toString(
            'hex',
          ),
        }
      : { text }),
    status: record.status,
    cause: record.cause,
    attempts: record.attempts,
    valid_until: formatRecordTimestamp(record.validUntil),
  };
}

const TAGS = ['sms'];

export function smsRoutes(deps: { sms: SmsService }) {
  const { sms } = deps;
  return async (app: App): Promise<void> => {
    app.post(
      '/api/v1/sms',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: TAGS,
          summary:
            'Send a short message to a subscriber (by MSISDN or IMSI): stored, then delivered over NAS',
          body: SendSmsBody,
          response: { 201: Envelope(SmsSent) },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const { imsi, ids } = await sms.send(
          {
            ...(body.msisdn === undefined ? {} : { msisdn: body.msisdn }),
            ...(body.imsi === undefined ? {} : { imsi: body.imsi }),
            ...(body.text === undefined ? {} : { text: body.text }),
            ...(body.data === undefined ? {} : { data: body.data }),
            ...(body.from === undefined ? {} : { from: body.from }),
            ...(body.validity_seconds === undefined ? {} : { validitySeconds: body.validity_seconds }),
          },
          actorOf(request),
        );
        return reply.code(201).send(ok({ message: `SMS to ${imsi} queued`, imsi, ids }));
      },
    );

    app.get(
      '/api/v1/sms',
      {
        config: { permission: 'records:read' },
        schema: {
          tags: TAGS,
          summary: 'Short messages (one item per part), newest first',
          querystring: SmsQuery,
          response: { 200: Envelope(Paginated(SmsItem)) },
        },
      },
      async (request) => {
        const { limit, offset } = pageWindow(request.query);
        const { imsi, msisdn, direction, status } = request.query;
        const window = timestampWindowOf(request.query);
        const filter = {
          ...(imsi === undefined ? {} : { imsi }),
          ...(msisdn === undefined ? {} : { msisdn: msisdn.replace(/^\+/, '') }),
          ...(direction === undefined ? {} : { direction }),
          ...(status === undefined ? {} : { status }),
          ...(window.from === undefined ? {} : { from: window.from }),
          ...(window.to === undefined ? {} : { to: window.to }),
        };
        const { items, total } = await sms.list(filter, limit, offset);
        return ok(paginated(items.map(toItem), total, request.query));
      },
    );

    app.delete(
      '/api/v1/sms',
      {
        config: { permission: 'records:write' },
        schema: {
          tags: TAGS,
          summary: 'Delete every short message, delivered or not',
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => message(`${await sms.clear(actorOf(request))} SMS messages deleted`),
    );
  };
}
