/** A warning or error from the records, as the dashboard lists it. */
export interface Warning {
  id: string;
  timestamp: string;
  level: 'warn' | 'error';
  source: 'radio log' | 'audit log';
  /** The radio's id or the acting user. */
  subject: string;
  what: string;
}

interface RadioLog {
  id: number;
  timestamp: string;
  level: string;
  ran_id: string;
  event: string;
}

interface AuditLog {
  id: number;
  timestamp: string;
  level: string;
  actor: string;
  action: string;
}

/** Radio logs say `warn`/`error`, audit logs `WARN`/`ERROR`; anything else is not a warning. */
function warningLevel(level: string): Warning['level'] | undefined {
  const lower = level.toLowerCase();
  return lower === 'warn' || lower === 'warning' ? 'warn' : lower === 'error' ? 'error' : undefined;
}

/**
 * The newest warnings and errors among the given radio and audit logs (the API filters neither by level,
 * so the dashboard reads the latest page of each and keeps these), newest first, at most `limit`.
 */
export function recentWarnings(
  radioLogs: readonly RadioLog[],
  auditLogs: readonly AuditLog[],
  limit = 10,
): Warning[] {
  const warnings: Warning[] = [];
  for (const log of radioLogs) {
    const level = warningLevel(log.level);
    if (level) {
      warnings.push({
        id: `radio-${log.id}`,
        timestamp: log.timestamp,
        level,
        source: 'radio log',
        subject: log.ran_id,
        what: log.event,
      });
    }
  }
  for (const log of auditLogs) {
    const level = warningLevel(log.level);
    if (level) {
      warnings.push({
        id: `audit-${log.id}`,
        timestamp: log.timestamp,
        level,
        source: 'audit log',
        subject: log.actor,
        what: log.action,
      });
    }
  }
  return warnings.sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp)).slice(0, limit);
}
