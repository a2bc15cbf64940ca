import type { Generated } from 'kysely';

/** Tables of the foundation: users, login sessions, API tokens, audit log, settings, retention. Times are Unix ms. */
interface UsersTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  role_id: number;
  created_at: number;
}

interface LoginSessionsTable {
  /** 128 random bits, base64url: bearer tokens name their session by it (`sid`). */
  id: string;
  user_id: number;
  token_hash: string;
  created_at: number;
  expires_at: number;
}

interface ApiTokensTable {
  id: Generated<number>;
  public_id: string;
  user_id: number;
  name: string;
  secret_hash: string;
  created_at: number;
  expires_at: number | null;
}

interface AuditLogsTable {
  id: Generated<number>;
  timestamp: number;
  level: string;
  actor: string;
  action: string;
  ip: string;
  details: string;
}

interface SettingsTable {
  key: string;
  value: string;
}

interface RetentionPoliciesTable {
  record_type: string;
  days: number;
}

export interface FoundationTables {
  users: UsersTable;
  login_sessions: LoginSessionsTable;
  api_tokens: ApiTokensTable;
  audit_logs: AuditLogsTable;
  settings: SettingsTable;
  retention_policies: RetentionPoliciesTable;
}
