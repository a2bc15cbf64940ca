import { Type } from 'typebox';
import { EmailString, PasswordString } from '../../http/schemas.ts';

const RoleIdSchema = Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], {
  description: '1 admin, 2 read-only, 3 network manager',
  'x-error': 'must be 1 (admin), 2 (read-only) or 3 (network manager)',
});

export const UserResult = Type.Object({ email: Type.String(), role_id: Type.Integer() });

export const CreateUserBody = Type.Object(
  { email: EmailString, password: PasswordString, role_id: RoleIdSchema },
  { additionalProperties: false },
);

export const UpdateUserBody = Type.Object({ role_id: RoleIdSchema }, { additionalProperties: false });

export const SetPasswordBody = Type.Object({ password: PasswordString }, { additionalProperties: false });

export const ChangeOwnPasswordBody = Type.Object(
  { current_password: Type.String({ maxLength: 256 }), password: PasswordString },
  { additionalProperties: false },
);

export const EmailParams = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) });
