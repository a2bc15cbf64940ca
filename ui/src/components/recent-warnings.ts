import { explain, type ExplanationContext } from '../../../src/resources/subscriber-timeline/explanations.ts';
import { parseDetails } from './json-tree.ts';

/** A warning or error from the records, as the dashboard lists it. */
export interface Warning {
  id: string;
  timestamp: string;
  level: 'warn' | 'error';
  source: 'radio log' | 'subscriber log' | 'audit log';
  /** The radio's id, the device (and the radio it came through) or the acting user. */
  subject: string;
  what: string;
  /**
   * For a device of no subscriber, what went wrong in plain words and what to check (the timeline's
   * explanations, which need a subscriber, never show it): a SUCI under a home network key this core
   * lacks names the key and the keys the core has.
   */
  explanation?: string;
}

interface RadioLog {
  id: number;
  timestamp: string;
  level: string;
  ran_id: string;
  event: string;
}

interface SubscriberLog {
  id: number;
  timestamp: string;
  level: string;
  imsi: string;
  event: string;
  /** JSON: `radio`, `suci` or `guti`, `cause` (network.md section 4). */
  details: string;
}

interface AuditLog {
  id: number;
  timestamp: string;
  level: string;
  actor: string;
  action: string;
}

/** The logs the warnings are picked from (the latest page of each). */
export interface WarningSources {
  radioLogs: readonly RadioLog[];
  subscriberLogs: readonly SubscriberLog[];
  auditLogs: readonly AuditLog[];
  /** The core's home network keys, once read: without them no explanation is given. */
  homeNetworkKeys?: readonly { id: number; scheme: string }[];
}

/** Radio and subscriber logs say `warn`/`error`, audit logs `WARN`/`ERROR`; anything else is not a warning. */
function warningLevel(level: string): Warning['level'] | undefined {
  const lower = level.toLowerCase();
  return lower === 'warn' || lower === 'warning' ? 'warn' : lower === 'error' ? 'error' : undefined;
}

/** TS 24.501 9.11.3.4: protection scheme 0 null, 1 Profile A, 2 Profile B. */
const SCHEMES: Record<string, string> = { '0': 'null scheme', '1': 'Profile A', '2': 'Profile B' };

/**
 * A SUCI as the operator asks about it: its home network, protection scheme and key id
 * (`suci-0-<MCC>-<MNC>-<routing indicator>-<scheme>-<key id>-<output>`, TS 23.003 2.2B), not its
 * concealed output; any other form (an NAI) as written.
 */
export function suciSummary(suci: string): string {
  const parts = suci.split('-');
  if (parts[0] !== 'suci' || parts.length < 8) return `SUCI ${suci}`;
  const [, , mcc, mnc, , scheme = '', keyId] = parts;
  const named = SCHEMES[scheme] ?? `scheme ${scheme}`;
  return `SUCI of home network ${mcc}-${mnc}, ${named}, key ${keyId}`;
}

function detailsOf(text: string): Record<string, unknown> {
  const parsed = parseDetails(text);
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}

/**
 * The device a subscriber log concerns: its IMSI, or, for a device the core could not map to a
 * subscriber (logged with no IMSI), the SUCI or 5G-GUTI its details name (network.md section 4).
 */
export function deviceNamed(imsi: string, details: string | Record<string, unknown>): string {
  if (imsi !== '') return imsi;
  const named = typeof details === 'string' ? detailsOf(details) : details;
  if (typeof named.suci === 'string') return suciSummary(named.suci);
  return typeof named.guti === 'string' ? `5G-GUTI ${named.guti}` : 'unidentified device';
}

/** The device of a subscriber log, then the radio it came through. */
function deviceOf(log: SubscriberLog, details: Record<string, unknown>): string {
  const device = deviceNamed(log.imsi, details);
  return typeof details.radio === 'string' && details.radio !== '' ? `${device} on ${details.radio}` : device;
}

/**
 * The newest warnings and errors among the given radio, subscriber and audit logs (the API filters none
 * by level, so the dashboard reads the latest page of each and keeps these), newest first, at most
 * `limit`. A subscriber log's warning names its 5GMM/5GSM cause (rejects, failures).
 */
export function recentWarnings(sources: WarningSources, limit = 10): Warning[] {
  const warnings: Warning[] = [];
  for (const log of sources.radioLogs) {
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
  for (const log of sources.subscriberLogs) {
    const level = warningLevel(log.level);
    if (level) {
      const details = detailsOf(log.details);
      const keys = sources.homeNetworkKeys?.filter(
        (key): key is ExplanationContext['homeNetworkKeys'][number] =>
          key.scheme === 'A' || key.scheme === 'B',
      );
      // A device of no subscriber has no profile or policies: only the identity's explanation applies.
      const explanation =
        log.imsi === '' && keys !== undefined
          ? explain(
              { event: log.event, level: log.level, details },
              { homeNetworkKeys: keys, profileName: '', policies: [] },
            )
          : undefined;
      warnings.push({
        id: `subscriber-${log.id}`,
        timestamp: log.timestamp,
        level,
        source: 'subscriber log',
        subject: deviceOf(log, details),
        what: typeof details.cause === 'string' ? `${log.event}: ${details.cause}` : log.event,
        ...(explanation !== undefined && { explanation }),
      });
    }
  }
  for (const log of sources.auditLogs) {
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
