import { Type } from 'typebox';
import { ImsiQuery, RecordTimestamp, TimestampRangeQuery } from '../../http/record-schemas.ts';
import { PaginationQuery } from '../../http/schemas.ts';
import { Imsi, Msisdn } from '../../validation/network-values.ts';

const Status = Type.Union([
  Type.Literal('queued'),
  Type.Literal('delivered'),
  Type.Literal('failed'),
  Type.Literal('expired'),
]);
const Direction = Type.Union([Type.Literal('mobile-originated'), Type.Literal('network-originated')]);

export const SendSmsBody = Type.Object(
  {
    msisdn: Type.Optional({ ...Msisdn, description: 'the recipient by MSISDN (or give imsi)' }),
    imsi: Type.Optional({ ...Imsi, description: 'the recipient by IMSI (or give msisdn)' }),
    text: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40_000,
        description: 'GSM 7-bit when every character is in it, else UCS-2; split into up to 255 parts',
      }),
    ),
    data: Type.Optional(
      Type.String({
        pattern: '^([0-9A-Fa-f]{2}){1,140}$',
        'x-error': 'must be 1 to 140 octets in hexadecimal',
        description: '8-bit data (TP-DCS 8-bit) in one message, instead of text',
      }),
    ),
    from: Type.Optional(
      Type.String({
        maxLength: 16,
        'x-error': 'must be an E.164 number or a sender id of 1 to 11 characters of the GSM 7-bit alphabet',
        description:
          'the sender: an E.164 number, or an id of at most 11 GSM 7-bit characters (default "PMN Core")',
      }),
    ),
    validity_seconds: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 63 * 7 * 86_400,
        'x-error': 'must be an integer of 60 to 38102400 seconds (63 weeks, TS 23.040 9.2.3.12.1)',
        description: 'how long it waits for its recipient (default 7 days)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const SmsSent = Type.Object({
  message: Type.String(),
  imsi: Type.String({ description: "the recipient's IMSI" }),
  ids: Type.Array(Type.Integer(), { description: 'one per part, in order' }),
});

export const SmsQuery = Type.Object({
  ...PaginationQuery.properties,
  imsi: Type.Optional({ ...ImsiQuery, description: 'a subscriber, as sender or recipient' }),
  msisdn: Type.Optional({
    ...Type.String({ pattern: '^\\+?[1-9][0-9]{0,14}$', 'x-error': 'must be an E.164 number' }),
    description: 'a number, as sender or recipient',
  }),
  direction: Type.Optional({ ...Direction, 'x-error': 'must be mobile-originated or network-originated' }),
  status: Type.Optional({ ...Status, 'x-error': 'must be queued, delivered, failed or expired' }),
  ...TimestampRangeQuery,
});

export const SmsItem = Type.Object({
  id: Type.Integer(),
  created_at: RecordTimestamp,
  updated_at: RecordTimestamp,
  direction: Direction,
  from: Type.String({ description: "the sender's MSISDN, or the operator's sender id" }),
  from_imsi: Type.Union([Type.String(), Type.Null()], {
    description: 'the sending device; null from the API',
  }),
  to_imsi: Type.Union([Type.String(), Type.Null()], {
    description: 'the recipient; null for a number outside the network, handed to the SMSC link',
  }),
  to_msisdn: Type.Union([Type.String(), Type.Null()]),
  text: Type.Optional(Type.String({ description: 'the text of this part, when it is text' })),
  data: Type.Optional(
    Type.String({ description: 'the octets of this part in hexadecimal, when they are not text' }),
  ),
  status: Status,
  cause: Type.Union([Type.String(), Type.Null()], {
    description: "why it failed: the RP-cause the device answered, or the SMSC's refusal or receipt state",
  }),
  attempts: Type.Integer(),
  valid_until: RecordTimestamp,
});
