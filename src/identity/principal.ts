import type { RoleId } from './roles.ts';

/** The authenticated caller of a request. */
export interface Principal {
  userId: number;
  email: string;
  roleId: RoleId;
  /** How the caller proved who it is. */
  via: 'bearer' | 'api_token';
}
