import { Type } from 'typebox';
import { Hex128, Imsi, Msisdn, ResourceName, SequenceNumber } from '../../validation/network-values.ts';
import { PaginationQuery } from '../../http/schemas.ts';

const profileName = { ...ResourceName, description: 'name of an existing profile' };

/** In bodies: an MSISDN, or null for none. */
const msisdnOrNull = (description: string) =>
  Type.Union([Msisdn, Type.Null()], {
    description: `${description}; unique across subscribers, stored as digits without "+"`,
  });

/** In reads: the stored MSISDN (digits only), or null. */
const StoredMsisdnOrNull = Type.Union([Type.String(), Type.Null()], {
  description: 'E.164 digits without "+"; null when the subscriber has none',
});

export const CreateSubscriberBody = Type.Object(
  {
    imsi: { ...Imsi, description: "15 digits starting with the operator's MCC and MNC" },
    key: { ...Hex128, description: 'permanent key K; write-only (see the credentials endpoint)' },
    sequenceNumber: SequenceNumber,
    profile_name: profileName,
    opc: Type.Optional({ ...Hex128, description: "OPc; derived from the operator's OP and key when absent" }),
    msisdn: Type.Optional(msisdnOrNull('E.164 number (TS 23.003 3.3); none when absent or null')),
  },
  { additionalProperties: false },
);

export const UpdateSubscriberBody = Type.Object(
  {
    profile_name: profileName,
    msisdn: Type.Optional(msisdnOrNull('E.164 number (TS 23.003 3.3); null removes it, absent keeps it')),
  },
  { additionalProperties: false },
);

export const SubscriberListQuery = Type.Object({
  ...PaginationQuery.properties,
  radio: Type.Optional(
    Type.String({ maxLength: 256, description: 'only subscribers the radio of this name serves now' }),
  ),
  data_network: Type.Optional(
    Type.String({ maxLength: 256, description: 'only subscribers whose profile reaches this data network' }),
  ),
  msisdn: Type.Optional({ ...Msisdn, description: 'only the subscriber with this MSISDN ("+" optional)' }),
});

export const ImsiParams = Type.Object({ imsi: Type.String({ maxLength: 64 }) });

export const SubscriberListItem = Type.Object({
  imsi: Type.String(),
  msisdn: StoredMsisdnOrNull,
  profile_name: Type.String(),
  status: Type.Object({
    registered: Type.Boolean(),
    radio_access_types: Type.Array(Type.String(), { description: 'e.g. 5G; empty when not registered' }),
    num_sessions: Type.Integer(),
  }),
});

const SessionItem = Type.Object({
  radio_access_type: Type.String(),
  id: Type.Integer(),
  status: Type.String(),
  ip_type: Type.String(),
  ipv4_address: Type.String(),
  ipv6_prefix: Type.String(),
  data_network: Type.String(),
  slice: Type.Object({ sst: Type.Integer(), sd: Type.String() }),
  ambr_uplink: Type.String(),
  ambr_downlink: Type.String(),
});

export const SubscriberResult = Type.Object({
  imsi: Type.String(),
  msisdn: StoredMsisdnOrNull,
  profile_name: Type.String(),
  status: Type.Object(
    {
      registered: Type.Boolean(),
      radio_access_types: Type.Array(Type.String()),
      imei: Type.String(),
      ciphering_algorithm: Type.String(),
      integrity_algorithm: Type.String(),
      last_seen_at: Type.String({ description: 'RFC 3339 UTC; "" when not seen since the core started' }),
      last_seen_radio: Type.String(),
      serving_amf: Type.String({
        description: 'the AMF Name of the AMF set member serving the registered device; "" when none does',
      }),
    },
    { description: 'unknown string values are ""' },
  ),
  sessions: Type.Array(SessionItem),
});

export const CredentialsResult = Type.Object({
  key: Type.String(),
  opc: Type.String(),
  sequenceNumber: Type.String(),
});

export const ImportBody = Type.Array(Type.Unknown(), {
  'x-error': 'must be a JSON array of subscribers, or CSV (text/csv) with a header row',
  description:
    'Up to 10,000 subscribers, each with the fields of POST /api/v1/subscribers; or the same as CSV ' +
    '(Content-Type text/csv) whose header row names the columns imsi, key, sequenceNumber, profile_name ' +
    'and optionally opc (an empty opc cell means derive it) and msisdn (an empty cell means none). All ' +
    'are created or none.',
});
