import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  listen: { host: string; port: number };
  db: string;
  logLevel: LogLevel;
  tls?: { cert: string; key: string };
  /** Login attempts allowed per client address and e-mail in one minute. */
  loginRateLimit: number;
  /**
   * The key file that seals secrets at rest (subscriber keys, OPcs, the OP). Default: the database path
   * with `.key` appended, created at first start with mode 0600.
   */
  secretKeyFile?: string;
}

export const DEFAULT_CONFIG: Config = {
  listen: { host: '127.0.0.1', port: 5002 },
  db: './data/core.db',
  logLevel: 'info',
  loginRateLimit: 10,
};

/** Settings as they arrive from one source, before they are checked. */
interface RawSettings {
  listen?: unknown;
  db?: unknown;
  log_level?: unknown;
  tls?: { cert?: unknown; key?: unknown };
  login_rate_limit?: unknown;
  secret_key_file?: unknown;
}

export class ConfigError extends Error {}

export function parseListen(value: string, source: string): { host: string; port: number } {
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
  const known = new Set(['listen', 'db', 'log_level', 'tls', 'login_rate_limit', 'secret_key_file']);
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
    if (typeof raw.db !== 'string' || raw.db === '') throw new ConfigError(`${source}: db must be a path`);
    config.db = raw.db;
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
}

/** Where the secret key lives: as configured, or beside the database file. */
export function secretKeyPath(config: Config): string {
  return config.secretKeyFile ?? `${config.db}.key`;
}

/**
 * Settings come from defaults, then the YAML file, then PMN_* environment variables, then flags:
 * each later source overrides the earlier ones.
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): Config {
  let flags;
  try {
    flags = parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        listen: { type: 'string' },
        db: { type: 'string' },
        'log-level': { type: 'string' },
        'secret-key-file': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }

  const config: Config = structuredClone(DEFAULT_CONFIG);
  const configPath = flags.config ?? env.PMN_CONFIG;
  if (configPath) applySettings(config, readConfigFile(configPath), `config file ${configPath}`);
  applySettings(
    config,
    {
      listen: env.PMN_LISTEN,
      db: env.PMN_DB,
      log_level: env.PMN_LOG_LEVEL,
      secret_key_file: env.PMN_SECRET_KEY_FILE,
    },
    'environment',
  );
  applySettings(
    config,
    {
      listen: flags.listen,
      db: flags.db,
      log_level: flags['log-level'],
      secret_key_file: flags['secret-key-file'],
    },
    'flags',
  );
  return config;
}
