import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { Envelope, message, MessageResult } from '../../http/schemas.ts';
import { bodyChecker } from '../../http/validation.ts';
import { parseSubscriberCsv } from './subscriber-csv.ts';
import { CreateSubscriberBody, ImportBody } from './subscribers.schema.ts';
import {
  checkImportSize,
  type ImportEntry,
  type NewSubscriber,
  type SubscribersService,
} from './subscribers.service.ts';

/** 10,000 subscribers as JSON take about 1.7 MB with their OPcs; this leaves room for formatting. */
const IMPORT_BODY_LIMIT = 8 * 1024 * 1024;

/**
 * `POST /api/v1/subscribers/import`, in a plugin of its own so that the CSV body parser and the larger
 * body limit apply to this route only.
 */
export function subscriberImportRoutes(deps: { subscribers: SubscribersService }) {
  // The create body's schema checks each row: one definition of every rule for create and import.
  const checkRow = bodyChecker(CreateSubscriberBody);

  const toEntry = (value: unknown, index: number): ImportEntry => {
    const row = index + 1;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { row, error: 'must be an object with the fields of a new subscriber' };
    }
    const error = checkRow(value);
    if (error) return { row, error };
    const body = value as {
      imsi: string;
      key: string;
      sequenceNumber: string;
      profile_name: string;
      opc?: string;
      msisdn?: string | null;
    };
    const subscriber: NewSubscriber = {
      imsi: body.imsi,
      key: body.key,
      sequenceNumber: body.sequenceNumber,
      profileName: body.profile_name,
      opc: body.opc,
      msisdn: body.msisdn,
    };
    return { row, subscriber };
  };

  return async (app: App): Promise<void> => {
    app.addContentTypeParser(
      'text/csv',
      { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT },
      (_request, body, done) => {
        try {
          done(null, parseSubscriberCsv(body as string));
        } catch (error) {
          done(error as Error, undefined);
        }
      },
    );

    app.post(
      '/api/v1/subscribers/import',
      {
        config: { permission: 'network:write', contentType: 'application/json or text/csv' },
        bodyLimit: IMPORT_BODY_LIMIT,
        schema: {
          tags: ['subscribers'],
          summary: 'Create up to 10,000 subscribers at once (JSON array or CSV): all or none',
          description:
            'Every row is checked with the rules of POST /api/v1/subscribers. When any row fails, nothing ' +
            'is created and the error lists every failing row ("row N" counts subscribers from 1; in CSV ' +
            'the row after the header is row 1) with its reason: 409 when the only faults are IMSIs that ' +
            'already exist, 400 otherwise.',
          consumes: ['application/json', 'text/csv'],
          body: ImportBody,
          response: { 201: Envelope(MessageResult) },
        },
      },
      async (request, reply) => {
        // Each row costs a schema check: an oversized import is refused before any of them.
        checkImportSize(request.body.length);
        const count = await deps.subscribers.import(request.body.map(toEntry), actorOf(request));
        return reply.code(201).send(message(`${count} subscribers imported`));
      },
    );
  };
}
