import { Type } from 'typebox';
import {
  Base64Raw,
  JsonDetails,
  LogDirection,
  LogDirectionQuery,
  NameQuery,
  RadioIdQuery,
  RecordTimestamp,
  TimestampRangeQuery,
} from '../../http/record-schemas.ts';
import { PaginationQuery } from '../../http/schemas.ts';

export const RadioLogQuery = Type.Object({
  ...PaginationQuery.properties,
  ran_id: Type.Optional({ ...RadioIdQuery, description: 'radio id, <mcc>:<mnc>:<gNB id in hex>' }),
  direction: Type.Optional(LogDirectionQuery),
  event: Type.Optional({ ...NameQuery, description: 'event name, exact' }),
  ...TimestampRangeQuery,
});

export const RadioLogItem = Type.Object({
  id: Type.Integer(),
  timestamp: RecordTimestamp,
  level: Type.String({ description: 'debug, info, warn or error' }),
  ran_id: Type.String(),
  event: Type.String(),
  direction: LogDirection,
  raw: Base64Raw,
  details: JsonDetails,
});
