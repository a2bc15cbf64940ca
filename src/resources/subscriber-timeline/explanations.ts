/**
 * A failed step of a device's story in plain words (issue 32 item 3): what the cause means for this
 * device and what the operator should check, from the subscriber log (its message, cause and identity,
 * network.md section 4) and what the core is configured with now.
 */

/** What the explanations compare a log with: the core's configuration as it is now. */
export interface ExplanationContext {
  homeNetworkKeys: readonly { id: number; scheme: 'A' | 'B' }[];
  profileName: string;
  /** The policies of the subscriber's profile: what its sessions and slices may use. */
  policies: readonly { name: string; dataNetworkName: string; sliceName: string | null }[];
}

interface ExplainedLog {
  event: string;
  level: string;
  /** The log's details, parsed. */
  details: Record<string, unknown>;
}

/** The number of a cause as logged, `MAC failure (20)` -> 20. */
function causeNumber(details: Record<string, unknown>): number | undefined {
  const cause = details.cause;
  if (typeof cause !== 'string') return undefined;
  const match = /\((\d+)\)$/.exec(cause);
  return match === null ? undefined : Number(match[1]);
}

/** The protection scheme numbers of a SUCI (TS 24.501 9.11.3.4, TS 33.501 Annex C). */
const SCHEME_NAMES: Record<string, 'A' | 'B' | undefined> = { '1': 'A', '2': 'B' };

/** The protection scheme and home network key id a SUCI names (TS 23.003 2.2B: `suci-0-mcc-mnc-ri-scheme-key-...`). */
function suciKey(suci: unknown): { scheme: string; keyId: number } | undefined {
  if (typeof suci !== 'string') return undefined;
  const parts = suci.split('-');
  if (parts[0] !== 'suci' || parts.length < 8) return undefined;
  const keyId = Number(parts[6]);
  return Number.isInteger(keyId) ? { scheme: parts[5] as string, keyId } : undefined;
}

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

const CHECK_CREDENTIALS = 'check the K and OPc (or OP) stored for this subscriber against the SIM';

/** Registration Reject #7 (registration.ts, NOT_A_SUBSCRIBER): first the SUCI's home network key. */
function servicesNotAllowed(log: ExplainedLog, context: ExplanationContext): string {
  const named = suciKey(log.details.suci);
  const profile = named === undefined ? undefined : SCHEME_NAMES[named.scheme];
  if (named !== undefined && profile !== undefined) {
    const keys = context.homeNetworkKeys.filter((key) => key.scheme === profile).map((key) => key.id);
    const has =
      keys.length === 0
        ? `this core has no Profile ${profile} key`
        : `this core has Profile ${profile} key${keys.length === 1 ? '' : 's'} ${list(keys.map(String))}`;
    if (!keys.includes(named.keyId)) {
      return (
        `The SUCI names home network key ${named.keyId} (Profile ${profile}); ${has}, so the core ` +
        'cannot read the identity. Add that key (POST /api/v1/operator/home-network-keys) or provision ' +
        'the SIM with a key this core has.'
      );
    }
  }
  return (
    'The core refused the device as no subscriber of this network (5GS services not allowed): the ' +
    'subscriber did not exist when it registered, or it asked for a registration type this core does ' +
    'not serve. Check that the IMSI is provisioned.'
  );
}

function noSlices(context: ExplanationContext): string {
  const sliced = context.policies.map((policy) =>
    policy.sliceName === null
      ? `${policy.name} (data network ${policy.dataNetworkName}, any slice)`
      : `${policy.name} (data network ${policy.dataNetworkName}, slice ${policy.sliceName})`,
  );
  const what =
    sliced.length === 0
      ? `profile ${context.profileName} has no policy, so no slice is allowed to it`
      : `the profile's slices come from its policies: ${list(sliced)}; none of them allows a slice this core serves`;
  return (
    `No network slice is available to the device: ${what}. Add a policy for profile ` +
    `${context.profileName} with a slice of this core (the device falls back to the allowed ones).`
  );
}

function sessionRefused(cause: number, log: ExplainedLog, context: ExplanationContext): string | undefined {
  const allowed = context.policies.map((policy) =>
    policy.sliceName === null
      ? policy.dataNetworkName
      : `${policy.dataNetworkName} on slice ${policy.sliceName}`,
  );
  const granted =
    allowed.length === 0
      ? `profile ${context.profileName} has no policy, so it may use no data network`
      : `profile ${context.profileName} may use ${list(allowed)}`;
  const session = typeof log.details.pdu_session_id === 'number' ? ` ${log.details.pdu_session_id}` : '';
  switch (cause) {
    case 27:
      return `PDU session${session} refused: the data network (DNN) asked for is missing or unknown; ${granted}. Check the device's APN/DNN setting or add a policy.`;
    case 33:
      return `PDU session${session} refused: no policy authorises this data network and slice for the subscriber; ${granted}.`;
    case 26:
      // establishment.ts: no user plane, an exhausted pool, no TEID, or the UPF refused the session.
      return `PDU session${session} refused for lack of resources: the user plane (UPF) is not running or refused it, or the profile's address pools (ue-ip-pool, ue-ipv6-pool) have no free address. Check the upf part of GET /api/v1/status and the pools.`;
    default:
      return undefined;
  }
}

/**
 * The explanation of a failed step (a `warn` log with a cause, or an Authentication Reject), or
 * undefined when the log is no failure.
 */
export function explain(log: ExplainedLog, context: ExplanationContext): string | undefined {
  if (log.level !== 'warn') return undefined;
  const cause = causeNumber(log.details);
  const named = typeof log.details.cause === 'string' ? log.details.cause : undefined;
  switch (log.event) {
    case 'Authentication Reject':
      // TS 33.501 6.1.3.2.2: the RES* the device computed differs from the expected one.
      return `The device's answer to the authentication challenge (RES*) did not match: ${CHECK_CREDENTIALS}.`;
    case 'Authentication Failure':
      if (cause === 20)
        return `The device refused the network's authentication challenge: MAC failure, so the SIM and the core do not share the same keys; ${CHECK_CREDENTIALS}.`;
      if (cause === 21)
        return "The SIM found the sequence number out of range (synch failure); the core resynchronises from the AUTS it sent. If it repeats, check the subscriber's sequence number and its K and OPc.";
      break;
    case 'Registration Reject':
      if (cause === 7) return servicesNotAllowed(log, context);
      if (cause === 62) return noSlices(context);
      if (cause === 23)
        return 'The device supports none of the NAS security algorithms the core offers, or sent no security capabilities: compare GET /api/v1/operator/nas-security with what the device supports.';
      if (cause === 22) return 'The core was at its limit of devices (congestion); the device retries later.';
      break;
    case 'Security Mode Reject':
      // TS 24.501 5.4.2.5: #23 when the replayed security capabilities differ from those the UE sent.
      if (cause === 23)
        return 'The device refused the Security Mode Command: the security capabilities the core replayed differ from those it sent (UE security capabilities mismatch). Something between the device and the core altered its Registration Request.';
      return `The device refused the Security Mode Command${named === undefined ? '' : ` (${named})`}: it could not use the algorithms chosen. Compare GET /api/v1/operator/nas-security with what the device supports.`;
    case 'PDU Session Establishment Reject': {
      const refused = cause === undefined ? undefined : sessionRefused(cause, log, context);
      if (refused !== undefined) return refused;
      break;
    }
    default:
      break;
  }
  return named === undefined ? undefined : `${log.event}: ${named} (TS 24.501 9.11.3.2, 9.11.4.2).`;
}
