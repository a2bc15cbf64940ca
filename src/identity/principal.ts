import type { RoleId } from './roles.ts';

/**
 * The authenticated caller of a request, and how it proved who it is: a bearer JWT names the login
 * session it was issued for (a change of one's own password keeps that session, decisions section 5);
 * an API token belongs to no session.
 */
export type Principal = {
  userId: number;
  email: string;
  roleId: RoleId;
} & ({ via: 'bearer'; sessionId: string } | { via: 'api_token' });
