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
  imsi: Type.String(),
  event: Type.String(),
  direction: LogDirection,
  raw: Base64Raw,
  details: JsonDetails,
});
