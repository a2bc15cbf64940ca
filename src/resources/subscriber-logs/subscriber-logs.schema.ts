import { Type } from 'typebox';
import {
  Base64Raw,
  ImsiQuery,
  JsonDetails,
  LogDirection,
  LogDirectionQuery,
  NameQuery,
  RecordTimestamp,
  TimestampRangeQuery,
} from '../../http/record-schemas.ts';
import { PaginationQuery } from '../../http/schemas.ts';

export const SubscriberLogQuery = Type.Object({
  ...PaginationQuery.properties,
  imsi: Type.Optional(ImsiQuery),
  direction: Type.Optional(LogDirectionQuery),
  event: Type.Optional({ ...NameQuery, description: 'event name, exact' }),
  ...TimestampRangeQuery,
});

export const SubscriberLogItem = Type.Object({
  id: Type.Integer(),
  timestamp: RecordTimestamp,
  level: Type.String({ description: 'info, or warn for rejects and failures' }),
  imsi: Type.String({
    description:
      'the subscriber; empty for a device the core could not map to one (unknown SUPI, SUCI that could not be de-concealed, unresolvable 5G-GUTI)',
  }),
  event: Type.String(),
  direction: LogDirection,
  raw: Base64Raw,
  details: JsonDetails,
});
