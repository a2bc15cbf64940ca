import { Type } from 'typebox';
import { RecordTimestamp, TimestampRangeQuery } from '../../http/record-schemas.ts';
import { PaginationQuery } from '../../http/schemas.ts';

export const SubscriberTimelineQuery = Type.Object({
  ...PaginationQuery.properties,
  order: Type.Optional(
    Type.Enum(['newest', 'oldest'], {
      'x-error': 'must be newest or oldest',
      description: 'newest first (the default) or oldest first',
    }),
  ),
  kinds: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'comma-separated kinds: nas, ngap, state, session, upf (default: all)',
    }),
  ),
  ...TimestampRangeQuery,
});

export const SubscriberTimelineItem = Type.Object({
  timestamp: RecordTimestamp,
  kind: Type.Union(
    [
      Type.Literal('nas'),
      Type.Literal('ngap'),
      Type.Literal('state'),
      Type.Literal('session'),
      Type.Literal('upf'),
    ],
    {
      description:
        'nas: a 5GMM/5GSM message (a subscriber log); ngap: the NGAP message that carried one (a radio event); ' +
        'state: registered, deregistered, connected, idle or rejected; session: a PDU session established, ' +
        'modified or released; upf: a flow report of its traffic',
    },
  ),
  direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound'), Type.Null()], {
    description: 'a message: inbound (from the device or radio) or outbound; null for the other kinds',
  }),
  message: Type.String({
    description:
      'the NAS message (TS 24.501 name) or NGAP message type; the state (Registered, Deregistered, Connected, ' +
      'Idle, Rejected); the session event; Flow or Flow dropped',
  }),
  level: Type.String({
    description:
      'info, or warn for rejects, failures and dropped flows (an NGAP message: that of the NAS message it carried)',
  }),
  radio: Type.Union([Type.String(), Type.Null()], { description: 'the name of the radio it went through' }),
  summary: Type.String({
    description:
      'the message with its cause, identity, PDU session or UE NGAP ids; the state with its radio or cause; ' +
      'the session with its DNN, S-NSSAI, addresses and state; the flow with its endpoints and volume',
  }),
  source: Type.Union(
    [
      Type.Literal('subscriber_log'),
      Type.Literal('radio_event'),
      Type.Literal('subscriber_event'),
      Type.Literal('flow_report'),
    ],
    { description: 'the record record_id names' },
  ),
  record_id: Type.Integer({
    description:
      'the record it shows: a subscriber log, a radio event (GET /api/v1/ran/events/{id}), a subscriber event ' +
      '(registered, deregistered, sessions) or a flow report',
  }),
  linked_record_id: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'nas: the radio event that carried it; ngap: the subscriber log it carried; null when no carrier is proven (a ciphered message, or one identical to another device’s) and for the other kinds',
  }),
  explanation: Type.Union([Type.String(), Type.Null()], {
    description: 'for a reject or failure: its cause in plain words and what to check',
  }),
  details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description:
      'state: state, and cause or message type; session: pdu_session_id, data_network, slice {sst, sd}, ip_type, ' +
      'ipv4_address, ipv6_prefix, status, ambr_uplink, ambr_downlink (released: pdu_session_id); upf: the flow ' +
      'report (direction, action, protocol, addresses, ports, packets, bytes, start_time, end_time); null for messages',
  }),
});
