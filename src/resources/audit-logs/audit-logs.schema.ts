import { Type } from 'typebox';
import { CalendarDate, PaginationQuery } from '../../http/schemas.ts';

export const AuditLogQuery = Type.Object({
  ...PaginationQuery.properties,
  actor: Type.Optional(Type.String({ maxLength: 254, description: 'e-mail of the acting user' })),
  start: Type.Optional({ ...CalendarDate, description: 'entries on or after this UTC day' }),
  end: Type.Optional({ ...CalendarDate, description: 'entries up to the end of this UTC day' }),
});

export const AuditLogItem = Type.Object({
  id: Type.Integer(),
  timestamp: Type.String({ description: 'UTC with numeric offset and milliseconds' }),
  level: Type.String(),
  actor: Type.String(),
  action: Type.String(),
  ip: Type.String(),
  details: Type.String(),
});
