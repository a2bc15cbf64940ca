import { Type } from 'typebox';
import { LogDirection, RecordTimestamp, TimestampRangeQuery } from '../../http/record-schemas.ts';
import { PaginationQuery } from '../../http/schemas.ts';

export const SubscriberTimelineQuery = Type.Object({
  ...PaginationQuery.properties,
  order: Type.Optional(
    Type.Enum(['newest', 'oldest'], {
      'x-error': 'must be newest or oldest',
      description: 'newest first (the default) or oldest first',
    }),
  ),
  ...TimestampRangeQuery,
});

export const SubscriberTimelineItem = Type.Object({
  timestamp: RecordTimestamp,
  kind: Type.Union([Type.Literal('nas'), Type.Literal('ngap')], {
    description:
      'nas: a 5GMM/5GSM message (a subscriber log); ngap: the NGAP message that carried one (a radio event)',
  }),
  direction: LogDirection,
  message: Type.String({ description: 'the NAS message (TS 24.501 name) or NGAP message type' }),
  level: Type.String({
    description:
      'info, or warn for rejects and failures (an NGAP message: that of the NAS message it carried)',
  }),
  radio: Type.Union([Type.String(), Type.Null()], { description: 'the name of the radio it went through' }),
  summary: Type.String({ description: 'the message with its cause, identity, PDU session or UE NGAP ids' }),
  record_id: Type.Integer({
    description: 'the subscriber log (nas) or the radio event (ngap, GET /api/v1/ran/events/{id}) it shows',
  }),
  linked_record_id: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'nas: the radio event that carried it; ngap: the subscriber log it carried; null when no carrier is proven (a ciphered message, or one identical to another device’s)',
  }),
  explanation: Type.Union([Type.String(), Type.Null()], {
    description: 'for a reject or failure: its cause in plain words and what to check',
  }),
});
