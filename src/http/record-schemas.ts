import { Type } from 'typebox';
import { RADIO_ID_PATTERN } from '../network/radio-id.ts';

/** Query and item pieces shared by the record endpoints (radio events, logs, flow reports, usage). */

export const LogDirection = Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]);

export const LogDirectionQuery = Type.Enum(['inbound', 'outbound'], {
  'x-error': 'must be inbound or outbound',
});

/** An RFC 3339 bound; the service parses it (validation/timestamp.ts) and names the parameter. */
const TimestampQuery = Type.String({ maxLength: 64 });

export const TimestampRangeQuery = {
  timestamp_from: Type.Optional({
    ...TimestampQuery,
    description: 'RFC 3339; records at or after this instant',
  }),
  timestamp_to: Type.Optional({
    ...TimestampQuery,
    description: 'RFC 3339; records at or before this instant',
  }),
};

export const ImsiQuery = Type.String({ pattern: '^[0-9]{15}$', 'x-error': 'must be 15 digits' });

export const RadioIdQuery = Type.String({
  pattern: RADIO_ID_PATTERN,
  'x-error': 'must be <mcc>:<mnc>:<node id in hex>',
});

/** A short free-text equality filter (`protocol`, `event`, `message_type`). */
export const NameQuery = Type.String({
  minLength: 1,
  maxLength: 128,
  'x-error': 'must have 1 to 128 characters',
});

export const RecordTimestamp = Type.String({
  description: 'UTC with numeric offset and milliseconds, 2026-11-22T10:15:30.123+00:00',
});

export const Base64Raw = Type.String({ description: 'the message as sent or received, base64' });

export const JsonDetails = Type.String({ description: 'a JSON object, as a string' });
