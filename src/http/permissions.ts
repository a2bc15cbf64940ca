import { ROLE, type RoleId } from '../identity/roles.ts';

const ALL: readonly RoleId[] = [ROLE.admin, ROLE.readOnly, ROLE.networkManager];
const MANAGERS: readonly RoleId[] = [ROLE.admin, ROLE.networkManager];
const ADMIN: readonly RoleId[] = [ROLE.admin];

/**
 * The one permission table (decisions section 4). Every route names one of these permissions in its
 * `config.permission`; the authorisation step and the docs read this table and nothing else.
 */
export const PERMISSIONS = {
  /** No credentials needed. */
  public: 'public',
  /** Credentials checked by the route itself: the session cookie (refresh, logout). */
  session: 'session',
  'self:read': ALL,
  'self:password': ALL,
  'self:api-tokens': ALL,
  'users:read': MANAGERS,
  'users:manage': ADMIN,
  'auth:rotate-secret': ADMIN,
  'audit:read': ADMIN,
  'audit:retention': ADMIN,
  /** Operator, data networks, slices, policies, profiles, subscribers, radios. */
  'network:read': ALL,
  'network:write': MANAGERS,
  /** Draining the AMF set member that answers (docs/amf-set.md, "Draining"): it leaves the set. */
  'amf-set:drain': ADMIN,
  /** The N2 allowlist: which hosts may reach the AMF as radios. */
  'network:peers': ADMIN,
  /** Subscriber credentials (key, OPc): every read is audited. */
  'credentials:read': MANAGERS,
  /** Radio events, subscriber and radio logs, flow reports, usage. */
  'records:read': ALL,
  /** Clearing records and setting their retention. */
  'records:write': MANAGERS,
  'location:read': ALL,
  'location:write': MANAGERS,
  'metrics:read': ALL,
  profiling: ADMIN,
  backup: ADMIN,
} as const satisfies Record<string, readonly RoleId[] | 'public' | 'session'>;

export type Permission = keyof typeof PERMISSIONS;
