import { Type } from 'typebox';
import { EmailString, PasswordString } from '../../http/schemas.ts';

export const Credentials = Type.Object(
  { email: EmailString, password: PasswordString },
  { additionalProperties: false },
);

// Login accepts any password length so a wrong one is "invalid credentials", not a hint about the rules.
export const LoginCredentials = Type.Object(
  { email: Type.String({ maxLength: 254 }), password: Type.String({ maxLength: 256 }) },
  { additionalProperties: false },
);

export const TokenResult = Type.Object({
  message: Type.String(),
  token: Type.String({ description: 'bearer token (JWT) valid 15 minutes' }),
});

export const RefreshResult = Type.Object({
  token: Type.String({ description: 'bearer token (JWT) valid 15 minutes' }),
});

export const LookupResult = Type.Object({ valid: Type.Boolean() });
