import { Type } from 'typebox';

// SMPP 3.4 C-Octet Strings (5.2): printable ASCII here, at most the field's size less its NULL.
const printable = (max: number, min: number, what: string) =>
  Type.String({
    minLength: min,
    maxLength: max,
    pattern: '^[\\x20-\\x7E]*$',
    'x-error': `must be ${min === 0 ? 'at most' : `${min} to`} ${max} printable ASCII characters (${what})`,
  });

const State = Type.Union([Type.Literal('disabled'), Type.Literal('connecting'), Type.Literal('bound')]);

/** PUT /api/v1/sms/smsc: the whole configuration; the password may be left out to keep the stored one. */
export const SmscLinkBody = Type.Object(
  {
    host: Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[A-Za-z0-9.:_-]+$',
      'x-error': 'must be a host name or an IP address',
      description: "the SMSC's host name or IP address",
    }),
    port: Type.Integer({
      minimum: 1,
      maximum: 65535,
      'x-error': 'must be a port number (1 to 65535)',
      description: 'its SMPP port (commonly 2775)',
    }),
    system_id: { ...printable(15, 1, 'SMPP system_id'), description: 'the ESME identity to bind with' },
    password: Type.Optional({
      ...printable(8, 1, 'SMPP password'),
      description: 'the bind password; never returned; left out, the stored one is kept',
    }),
    system_type: Type.Optional({ ...printable(12, 0, 'SMPP system_type'), description: 'default empty' }),
    enabled: Type.Optional(
      Type.Boolean({ description: 'bind (default true); false keeps it configured but down' }),
    ),
  },
  { additionalProperties: false },
);

export const SmscLinkView = Type.Object({
  configured: Type.Boolean(),
  host: Type.Optional(Type.String()),
  port: Type.Optional(Type.Integer()),
  system_id: Type.Optional(Type.String()),
  system_type: Type.Optional(Type.String()),
  enabled: Type.Optional(Type.Boolean()),
  updated_at: Type.Optional(Type.String({ format: 'date-time' })),
  state: { ...State, description: 'the link now: disabled (none, disabled or no N2), connecting, bound' },
  last_error: Type.Union([Type.String(), Type.Null()], {
    description: 'why the last connection ended or the last bind failed',
  }),
});
