import { Type } from 'typebox';
import { ImsiQuery } from '../../http/record-schemas.ts';
import { CalendarDate } from '../../http/schemas.ts';

export const UsageQuery = Type.Object({
  start: Type.Optional({ ...CalendarDate, description: 'first UTC day; default 7 days ago' }),
  end: Type.Optional({ ...CalendarDate, description: 'last UTC day, included; default today' }),
  group_by: Type.Enum(['day', 'subscriber'], {
    default: 'day',
    'x-error': 'must be day or subscriber',
    description: 'key each total by UTC day (YYYY-MM-DD) or by IMSI',
  }),
  subscriber: Type.Optional({ ...ImsiQuery, description: 'only this subscriber (IMSI)' }),
});

const UsageTotals = Type.Object({
  uplink_bytes: Type.Integer(),
  downlink_bytes: Type.Integer(),
  total_bytes: Type.Integer(),
});

export const UsageGroups = Type.Array(Type.Record(Type.String(), UsageTotals), {
  description: 'one single-key object per day or subscriber with usage, ascending by key',
});
