/** Role ids as the API carries them in `role_id` (decisions section 4). */
export const ROLE = {
  admin: 1,
  readOnly: 2,
  networkManager: 3,
} as const;

export type RoleId = (typeof ROLE)[keyof typeof ROLE];

export const ROLE_IDS: readonly RoleId[] = [ROLE.admin, ROLE.readOnly, ROLE.networkManager];

export const ROLE_NAMES: Record<RoleId, string> = {
  1: 'admin',
  2: 'read-only',
  3: 'network manager',
};
