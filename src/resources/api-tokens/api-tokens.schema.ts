import { Type } from 'typebox';

export const ApiTokenItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'RFC 3339 UTC; null when the token never expires',
  }),
});

export const CreateApiTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 3, maxLength: 50, 'x-error': 'must have 3 to 50 characters' }),
    expires_at: Type.Optional(
      Type.String({ format: 'date-time', 'x-error': 'must be an RFC 3339 date-time in the future' }),
    ),
  },
  { additionalProperties: false },
);

export const CreatedApiToken = Type.Object({
  token: Type.String({ description: 'core_<id>_<secret>; shown only once' }),
});

export const TokenIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const OwnerTokenIdParams = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  id: Type.String({ maxLength: 64 }),
});
