/** The service's roles (decisions section 4); role_id as the API gives it. */
export const ROLE_NAMES: Record<number, string> = { 1: 'admin', 2: 'read-only', 3: 'network manager' };

/**
 * What the interface offers a role. It mirrors the service's permission table (src/http/permissions.ts)
 * so that what a role may not do is not shown; the service still decides every request.
 */
export interface Abilities {
  writeNetwork: boolean;
  readCredentials: boolean;
  writeRecords: boolean;
  readUsers: boolean;
  manageUsers: boolean;
  readAudit: boolean;
  backup: boolean;
  writeLocation: boolean;
}

export function abilitiesOf(roleId: number): Abilities {
  const admin = roleId === 1;
  const manager = admin || roleId === 3;
  return {
    writeNetwork: manager,
    readCredentials: manager,
    writeRecords: manager,
    readUsers: manager,
    manageUsers: admin,
    readAudit: admin,
    backup: admin,
    writeLocation: manager,
  };
}
