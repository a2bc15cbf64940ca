import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import {
  DatabaseLocationError,
  DEFAULT_POOL_SIZE,
  isPostgresUrl,
  parseDatabaseLocation,
} from '../storage/database-location.ts';
import { amfIdentityProblem } from '../network/amf/context/amf-identity.ts';
import { allowlistError } from '../network/amf/n2/n2-peer-allowlist.ts';
import { DEFAULT_N2_SETTINGS, type N2Settings } from '../network/amf/n2/n2-settings.ts';
import { N2_TRANSPORT_SETTINGS, type N2TransportSetting } from '../network/amf/n2/n2-transport-choice.ts';
import { endpointKey, furtherEndpointOf, type OfferedEndpoint } from '../network/amf/n2/tnl-associations.ts';
import { DEFAULT_AMF_SET_TIMING } from '../network/amf/set/amf-set-membership.ts';
import {
  applyUpfSettings,
  DEFAULT_UPF_SETTINGS,
  UPF_KEYS,
  type UpfKey,
  type UpfSettings,
} from '../network/upf/upf-settings.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  listen: { host: string; port: number };
  /** An SQLite file path, `:memory:`, or a PostgreSQL URL (src/storage/database-location.ts). */
  db: string;
  /** Connections kept to PostgreSQL (SQLite has one). */
  dbPoolSize: number;
  logLevel: LogLevel;
  tls?: { cert: string; key: string };
  /** Login attempts allowed per client address and e-mail in one minute. */
  loginRateLimit: number;
  /**
   * The key file that seals secrets at rest (subscriber keys, OPcs, the OP). Default: the database path
   * with `.key` appended, created at first start with mode 0600. Required with a PostgreSQL database.
   */
  secretKeyFile?: string;
  /** N2 towards radios: transport, listen addresses and ports, and the AMF's identity (docs/n2.md). */
  n2: N2Settings;
  /** The user plane: N3 address, N6 TUN device, table limits (docs/upf.md). */
  upf: UpfSettings;
}

export const DEFAULT_CONFIG: Config = {
  listen: { host: '127.0.0.1', port: 5002 },
  db: './data/core.db',
  dbPoolSize: DEFAULT_POOL_SIZE,
  logLevel: 'info',
  loginRateLimit: 10,
  n2: DEFAULT_N2_SETTINGS,
  upf: DEFAULT_UPF_SETTINGS,
};

/** Settings as they arrive from one source, before they are checked. */
interface RawSettings extends Partial<Record<UpfKey, unknown>> {
  listen?: unknown;
  db?: unknown;
  db_pool_size?: unknown;
  log_level?: unknown;
  tls?: { cert?: unknown; key?: unknown };
  login_rate_limit?: unknown;
  secret_key_file?: unknown;
  n2_transport?: unknown;
  n2_addresses?: unknown;
  n2_port?: unknown;
  n2_udp_port?: unknown;
  n2_allowed_peers?: unknown;
  n2_further_endpoints?: unknown;
  amf_name?: unknown;
  amf_region_id?: unknown;
  amf_set_id?: unknown;
  amf_pointer?: unknown;
  amf_relative_capacity?: unknown;
  amf_t3512_seconds?: unknown;
  amf_t3502_seconds?: unknown;
  amf_t3550_seconds?: unknown;
  amf_t3560_seconds?: unknown;
  amf_t3570_seconds?: unknown;
  amf_t3522_seconds?: unknown;
  amf_t3555_seconds?: unknown;
  amf_t3513_seconds?: unknown;
  amf_t3346_seconds?: unknown;
  amf_mobile_reachable_seconds?: unknown;
  amf_implicit_deregistration_seconds?: unknown;
  amf_nas_retransmissions?: unknown;
  amf_nas_rekey_count?: unknown;
  amf_nas_security_max_age_seconds?: unknown;
  amf_max_ue_contexts?: unknown;
  amf_set_heartbeat_seconds?: unknown;
  amf_set_lease_seconds?: unknown;
  amf_drain_timeout_seconds?: unknown;
}

const N2_KEYS = [
  'n2_transport',
  'n2_addresses',
  'n2_port',
  'n2_udp_port',
  'n2_allowed_peers',
  'n2_further_endpoints',
  'amf_name',
  'amf_region_id',
  'amf_set_id',
  'amf_pointer',
  'amf_relative_capacity',
  'amf_t3512_seconds',
  'amf_t3502_seconds',
  'amf_t3550_seconds',
  'amf_t3560_seconds',
  'amf_t3570_seconds',
  'amf_t3522_seconds',
  'amf_t3555_seconds',
  'amf_t3513_seconds',
  'amf_t3346_seconds',
  'amf_mobile_reachable_seconds',
  'amf_implicit_deregistration_seconds',
  'amf_nas_retransmissions',
  'amf_nas_rekey_count',
  'amf_nas_security_max_age_seconds',
  'amf_max_ue_contexts',
  'amf_set_heartbeat_seconds',
  'amf_set_lease_seconds',
  'amf_drain_timeout_seconds',
] as const;

/** The AMF's NAS timers in seconds (docs/registration.md), by setting. */
const AMF_TIMER_KEYS = [
  ['amf_t3512_seconds', 't3512Ms'],
  ['amf_t3502_seconds', 't3502Ms'],
  ['amf_t3550_seconds', 't3550Ms'],
  ['amf_t3560_seconds', 't3560Ms'],
  ['amf_t3570_seconds', 't3570Ms'],
  ['amf_t3522_seconds', 't3522Ms'],
  ['amf_t3555_seconds', 't3555Ms'],
  ['amf_t3513_seconds', 't3513Ms'],
  ['amf_t3346_seconds', 't3346Ms'],
  ['amf_mobile_reachable_seconds', 'mobileReachableMs'],
  ['amf_implicit_deregistration_seconds', 'implicitDeregistrationMs'],
] as const;

export class ConfigError extends Error {}

function parseListen(value: string, source: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port < 0 || port > 65535) {
    throw new ConfigError(`${source}: listen must be HOST:PORT (for IPv6 [ADDR]:PORT), got "${value}"`);
  }
  return { host: match[1] ?? match[2] ?? '', port };
}

function readConfigFile(path: string): RawSettings {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid YAML: ${(error as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${path} must hold a mapping of settings`);
  }
  const known = new Set<string>([
    'listen',
    'db',
    'db_pool_size',
    'log_level',
    'tls',
    'login_rate_limit',
    'secret_key_file',
    ...N2_KEYS,
    ...UPF_KEYS,
  ]);
  for (const key of Object.keys(parsed)) {
    if (!known.has(key)) throw new ConfigError(`config file ${path}: unknown setting "${key}"`);
  }
  return parsed;
}

function applySettings(config: Config, raw: RawSettings, source: string): void {
  if (raw.listen !== undefined) {
    if (typeof raw.listen !== 'string') throw new ConfigError(`${source}: listen must be HOST:PORT`);
    config.listen = parseListen(raw.listen, source);
  }
  if (raw.db !== undefined) {
    if (typeof raw.db !== 'string' || raw.db === '')
      throw new ConfigError(`${source}: db must be a path or a PostgreSQL URL`);
    try {
      parseDatabaseLocation(raw.db);
    } catch (error) {
      if (error instanceof DatabaseLocationError) throw new ConfigError(`${source}: ${error.message}`);
      throw error;
    }
    config.db = raw.db;
  }
  if (raw.db_pool_size !== undefined) {
    config.dbPoolSize = integerSetting(raw.db_pool_size, 1, 1000, 'db_pool_size', source);
  }
  if (raw.log_level !== undefined) {
    const level = raw.log_level as LogLevel;
    if (typeof level !== 'string' || !LOG_LEVELS.includes(level)) {
      throw new ConfigError(`${source}: log_level must be one of ${LOG_LEVELS.join(', ')}`);
    }
    config.logLevel = level;
  }
  if (raw.tls !== undefined && raw.tls !== null) {
    const { cert, key } = raw.tls;
    if (cert !== undefined || key !== undefined) {
      if (typeof cert !== 'string' || typeof key !== 'string' || !cert || !key) {
        throw new ConfigError(`${source}: tls needs both cert and key file paths`);
      }
      config.tls = { cert, key };
    }
  }
  if (raw.login_rate_limit !== undefined) {
    const limit = Number(raw.login_rate_limit);
    if (!Number.isInteger(limit) || limit < 1) {
      throw new ConfigError(`${source}: login_rate_limit must be a positive integer`);
    }
    config.loginRateLimit = limit;
  }
  if (raw.secret_key_file !== undefined) {
    if (typeof raw.secret_key_file !== 'string' || raw.secret_key_file === '') {
      throw new ConfigError(`${source}: secret_key_file must be a path`);
    }
    config.secretKeyFile = raw.secret_key_file;
  }
  applyN2Settings(config, raw, source);
  const upf = applyUpfSettings(config.upf, raw, source);
  if (!upf.ok) throw new ConfigError(upf.error);
  config.upf = upf.settings;
}

/** An integer setting from YAML (a number) or from the environment or a flag (a string of digits). */
function integerSetting(value: unknown, min: number, max: number, what: string, source: string): number {
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    throw new ConfigError(`${source}: ${what} must be an integer in ${min}..${max}`);
  }
  return number;
}

/** N2 and AMF settings (docs/n2.md); the AMF identity is checked as a whole once every source is read. */
function applyN2Settings(config: Config, raw: RawSettings, source: string): void {
  const n2 = (config.n2 = { ...config.n2, amf: { ...config.n2.amf } });
  if (raw.n2_transport !== undefined) {
    const transport = raw.n2_transport as N2TransportSetting;
    if (typeof transport !== 'string' || !N2_TRANSPORT_SETTINGS.includes(transport)) {
      throw new ConfigError(`${source}: n2_transport must be one of ${N2_TRANSPORT_SETTINGS.join(', ')}`);
    }
    n2.transport = transport;
  }
  if (raw.n2_addresses !== undefined) {
    const list =
      typeof raw.n2_addresses === 'string'
        ? raw.n2_addresses.split(',').map((address) => address.trim())
        : raw.n2_addresses;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      !list.every((a) => typeof a === 'string' && isIP(a) !== 0)
    ) {
      throw new ConfigError(`${source}: n2_addresses must be one or more IP addresses (comma-separated)`);
    }
    n2.addresses = list as string[];
  }
  if (raw.n2_allowed_peers !== undefined) n2.allowedPeers = allowedPeersSetting(raw.n2_allowed_peers, source);
  if (raw.n2_further_endpoints !== undefined)
    n2.furtherEndpoints = furtherEndpointsSetting(raw.n2_further_endpoints, source);
  if (raw.n2_port !== undefined) n2.port = integerSetting(raw.n2_port, 0, 65535, 'n2_port', source);
  if (raw.n2_udp_port !== undefined)
    n2.udpPort = integerSetting(raw.n2_udp_port, 0, 65535, 'n2_udp_port', source);
  if (raw.amf_name !== undefined) {
    if (typeof raw.amf_name !== 'string') throw new ConfigError(`${source}: amf_name must be a string`);
    n2.amf.name = raw.amf_name;
  }
  if (raw.amf_region_id !== undefined)
    n2.amf.regionId = integerSetting(raw.amf_region_id, 0, 255, 'amf_region_id', source);
  if (raw.amf_set_id !== undefined)
    n2.amf.setId = integerSetting(raw.amf_set_id, 0, 1023, 'amf_set_id', source);
  if (raw.amf_pointer !== undefined)
    n2.amf.pointer = integerSetting(raw.amf_pointer, 0, 63, 'amf_pointer', source);
  if (raw.amf_relative_capacity !== undefined)
    n2.amf.relativeCapacity = integerSetting(
      raw.amf_relative_capacity,
      0,
      255,
      'amf_relative_capacity',
      source,
    );
  applyAmfTimers(n2, raw, source);
  applyNasRekeying(n2, raw, source);
  if (raw.amf_max_ue_contexts !== undefined)
    n2.amfLimits = {
      ...n2.amfLimits,
      maxUeContexts: integerSetting(raw.amf_max_ue_contexts, 1, 10_000_000, 'amf_max_ue_contexts', source),
    };
  applyAmfSetTiming(n2, raw, source);
  // How long a drain waits for its last connected UE before the member leaves (docs/amf-set.md, "Draining").
  if (raw.amf_drain_timeout_seconds !== undefined)
    n2.amfDrainTimeoutMs =
      integerSetting(raw.amf_drain_timeout_seconds, 1, 86_400, 'amf_drain_timeout_seconds', source) * 1000;
  const problem = amfIdentityProblem(n2.amf);
  if (problem !== undefined) throw new ConfigError(`${source}: ${problem}`);
}

/**
 * The AMF set's heartbeat and lease (seconds; docs/operations.md, "AMF set"). The lease must outlast
 * a heartbeat, or a live member would be gone between two of its own writes.
 */
function applyAmfSetTiming(n2: Config['n2'], raw: RawSettings, source: string): void {
  if (raw.amf_set_heartbeat_seconds === undefined && raw.amf_set_lease_seconds === undefined) return;
  const timing = (n2.amfSet = { ...n2.amfSet });
  if (raw.amf_set_heartbeat_seconds !== undefined)
    timing.heartbeatMs =
      integerSetting(raw.amf_set_heartbeat_seconds, 1, 3600, 'amf_set_heartbeat_seconds', source) * 1000;
  if (raw.amf_set_lease_seconds !== undefined)
    timing.leaseMs =
      integerSetting(raw.amf_set_lease_seconds, 2, 86_400, 'amf_set_lease_seconds', source) * 1000;
  const { heartbeatMs, leaseMs } = { ...DEFAULT_AMF_SET_TIMING, ...timing };
  if (leaseMs <= heartbeatMs)
    throw new ConfigError(
      `${source}: amf_set_lease_seconds (${leaseMs / 1000}) must be longer than amf_set_heartbeat_seconds (${heartbeatMs / 1000})`,
    );
}

/**
 * The AMF's NAS timers (seconds, 1 s .. 30 days) and retransmissions. The mobile reachable timer follows
 * T3512 + 4 min (TS 24.501 5.3.7) unless it is set itself.
 */
function applyAmfTimers(n2: Config['n2'], raw: RawSettings, source: string): void {
  if (
    ![...AMF_TIMER_KEYS.map(([key]) => key), 'amf_nas_retransmissions' as const].some(
      (key) => raw[key] !== undefined,
    )
  )
    return;
  const timers = (n2.amfTimers = { ...n2.amfTimers });
  for (const [key, field] of AMF_TIMER_KEYS) {
    if (raw[key] !== undefined) timers[field] = integerSetting(raw[key], 1, 2_592_000, key, source) * 1000;
  }
  if (timers.t3512Ms !== undefined && raw.amf_mobile_reachable_seconds === undefined)
    timers.mobileReachableMs = timers.t3512Ms + 4 * 60_000;
  if (raw.amf_nas_retransmissions !== undefined)
    timers.retransmissions = integerSetting(
      raw.amf_nas_retransmissions,
      0,
      10,
      'amf_nas_retransmissions',
      source,
    );
}

/** A list setting's entries: a YAML list of strings, or one comma-separated string (environment, flag). */
function stringList(value: unknown): string[] | undefined {
  const list =
    typeof value === 'string'
      ? value
          .split(',')
          .map((entry) => entry.trim())
          .filter((entry) => entry !== '')
      : value;
  return Array.isArray(list) && list.every((entry) => typeof entry === 'string') ? list : undefined;
}

/**
 * When a connected UE's NAS security context is replaced (docs/security.md, "NAS re-keying"): the NAS
 * COUNT that starts it (at most 2^24 - 256, room for the re-keying's own messages before the wrap), and
 * the context's maximum age in seconds (0: none).
 */
function applyNasRekeying(n2: Config['n2'], raw: RawSettings, source: string): void {
  if (raw.amf_nas_rekey_count === undefined && raw.amf_nas_security_max_age_seconds === undefined) return;
  const timers = (n2.amfTimers = { ...n2.amfTimers });
  if (raw.amf_nas_rekey_count !== undefined)
    timers.nasRekeyCount = integerSetting(
      raw.amf_nas_rekey_count,
      16,
      0xffff00,
      'amf_nas_rekey_count',
      source,
    );
  if (raw.amf_nas_security_max_age_seconds !== undefined)
    timers.nasSecurityMaxAgeMs =
      integerSetting(
        raw.amf_nas_security_max_age_seconds,
        0,
        31_536_000,
        'amf_nas_security_max_age_seconds',
        source,
      ) * 1000;
}

/** `n2_allowed_peers`: a YAML list, or comma-separated (environment, flag); empty admits every peer. */
function allowedPeersSetting(value: unknown, source: string): string[] {
  const list = stringList(value);
  if (list === undefined) {
    throw new ConfigError(
      `${source}: n2_allowed_peers must be IP addresses or CIDR networks (comma-separated)`,
    );
  }
  const error = allowlistError(list);
  if (error !== undefined) throw new ConfigError(`${source}: n2_allowed_peers: ${error}`);
  return list;
}

/**
 * `n2_further_endpoints`: the endpoints offered to radios for further TNL associations (docs/n2.md), a
 * YAML list or comma-separated; empty offers none.
 */
function furtherEndpointsSetting(value: unknown, source: string): OfferedEndpoint[] {
  const list = stringList(value);
  if (list === undefined)
    throw new ConfigError(
      `${source}: n2_further_endpoints must be <address>:<port> entries (comma-separated)`,
    );
  const endpoints: OfferedEndpoint[] = [];
  for (const entry of list) {
    const endpoint = furtherEndpointOf(entry);
    if ('error' in endpoint) throw new ConfigError(`${source}: n2_further_endpoints: ${endpoint.error}`);
    if (endpoints.some((e) => endpointKey(e) === endpointKey(endpoint)))
      throw new ConfigError(`${source}: n2_further_endpoints: ${endpointKey(endpoint)} is listed twice`);
    endpoints.push(endpoint);
  }
  return endpoints;
}

/** The N2, AMF and UPF settings as environment variables (`PMN_N2_TRANSPORT`, `PMN_N3_ADDRESS`, ...) or flags. */
function n2Sources(read: (key: (typeof N2_KEYS)[number] | UpfKey) => string | undefined): RawSettings {
  return Object.fromEntries([...N2_KEYS, ...UPF_KEYS].map((key) => [key, read(key)]));
}

/** Where the secret key lives: as configured, or beside the database file. */
export function secretKeyPath(config: Config): string {
  return config.secretKeyFile ?? `${config.db}.key`;
}

/**
 * A PostgreSQL database has no file to keep the key beside, and every core on it needs the same key:
 * it must be named.
 */
function checkSecretKeyFile(config: Config): void {
  if (isPostgresUrl(config.db) && config.secretKeyFile === undefined) {
    throw new ConfigError(
      'with a PostgreSQL database, secret_key_file (--secret-key-file, PMN_SECRET_KEY_FILE) must be set: every core on the database needs the same key file',
    );
  }
}

/** The configuration with its sources, as the file's watch compares them (src/config/config-reload.ts). */
export interface LoadedConfig {
  config: Config;
  /** The file's path (as given) and its settings as read; absent when no file was given. */
  file?: { path: string; settings: Readonly<Record<string, unknown>> };
  /** The settings the environment or a flag gave (file keys): they win over the file. */
  overridden: ReadonlySet<string>;
}

/**
 * Settings come from defaults, then the YAML file, then PMN_* environment variables, then flags:
 * each later source overrides the earlier ones.
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): Config {
  return loadConfigSources(argv, env).config;
}

/** `loadConfig`, with the file's settings and the keys the environment or flags set. */
export function loadConfigSources(argv: string[], env: NodeJS.ProcessEnv): LoadedConfig {
  let flags;
  try {
    flags = parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        listen: { type: 'string' },
        db: { type: 'string' },
        'db-pool-size': { type: 'string' },
        'log-level': { type: 'string' },
        'secret-key-file': { type: 'string' },
        ...Object.fromEntries(
          [...N2_KEYS, ...UPF_KEYS].map((key) => [key.replaceAll('_', '-'), { type: 'string' as const }]),
        ),
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }

  const config: Config = structuredClone(DEFAULT_CONFIG);
  const configPath = flags.config ?? env.PMN_CONFIG;
  const fileSettings = configPath ? readConfigFile(configPath) : undefined;
  if (configPath && fileSettings) applySettings(config, fileSettings, `config file ${configPath}`);
  const fromEnvironment: RawSettings = {
    listen: env.PMN_LISTEN,
    db: env.PMN_DB,
    db_pool_size: env.PMN_DB_POOL_SIZE,
    log_level: env.PMN_LOG_LEVEL,
    secret_key_file: env.PMN_SECRET_KEY_FILE,
    ...n2Sources((key) => env[`PMN_${key.toUpperCase()}`]),
  };
  applySettings(config, fromEnvironment, 'environment');
  const fromFlags: RawSettings = {
    listen: flags.listen,
    db: flags.db,
    db_pool_size: flags['db-pool-size'],
    log_level: flags['log-level'],
    secret_key_file: flags['secret-key-file'],
    ...n2Sources((key) => {
      const value: unknown = (flags as Record<string, unknown>)[key.replaceAll('_', '-')];
      return typeof value === 'string' ? value : undefined;
    }),
  };
  applySettings(config, fromFlags, 'flags');
  checkSecretKeyFile(config);
  const overridden = new Set(
    [...Object.entries(fromEnvironment), ...Object.entries(fromFlags)]
      .filter(([, value]) => value !== undefined)
      .map(([key]) => key),
  );
  return {
    config,
    ...(configPath && fileSettings
      ? { file: { path: configPath, settings: fileSettings as Readonly<Record<string, unknown>> } }
      : {}),
    overridden,
  };
}
