import { Type } from 'typebox';
import { ImsiQuery, NameQuery } from '../../http/record-schemas.ts';

export const EventStreamQuery = Type.Object({
  radio: Type.Optional({
    ...NameQuery,
    description: 'only events about this radio (its id, or its name)',
  }),
  imsi: Type.Optional({ ...ImsiQuery, description: 'only events about this subscriber (IMSI)' }),
  kinds: Type.Optional(
    Type.String({
      maxLength: 512,
      description:
        'comma-separated kinds: radio.connected, radio.disconnected, ue.registered, ue.deregistered, ' +
        'ue.rejected, session.established, session.released, nas.message, ngap.message, radio.log, ' +
        'audit (admin only) (default: all the role may read)',
    }),
  ),
  last_event_id: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,15}$',
      description: 'resume after this event id (as the Last-Event-ID header does)',
    }),
  ),
});
