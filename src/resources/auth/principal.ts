import type { RoleId } from '../users/roles.ts';

/** The authenticated caller of a request. */
export interface Principal {
  userId: number;
  email: string;
  roleId: RoleId;
  /** How the caller proved who it is. */
  via: 'bearer' | 'api_token';
}
