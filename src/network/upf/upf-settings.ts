import { isIP } from 'node:net';
import type { UpfDatapathChoice } from './upf-addon.ts';

/**
 * The UPF's process settings (config.ts; README "Configuration"; docs/upf.md "Settings"). The TUN
 * device's addresses and routes are the operator's (docs/upf.md "Operator setup").
 */
export interface UpfSettings {
  /** The local address GTP-U (N3) is bound to. */
  n3Address: string;
  /** 2152 (TS 29.281 4.4.2.0); 0 for a free port (tests). */
  n3Port: number;
  /** The N6 TUN device, created when absent. */
  tunName: string;
  maxSessions: number;
  maxFlows: number;
  /** Error Indications for unknown TEIDs sent per second at most (a flood of them is not answered). */
  errorIndicationsPerSecond: number;
  /**
   * `auto`: the XDP datapath where it loads on the N3 and N6 interfaces, else the TUN (docs/upf.md
   * "The XDP datapath"); absent: `tun`.
   */
  datapath?: UpfDatapathChoice;
  /**
   * The interface towards the data network, for the XDP datapath's downlink; unset: the interface of
   * the default route, found at start (docs/upf.md "The XDP datapath").
   */
  n6Interface?: string;
  /**
   * Host routes on the N6 TUN for the served UE addresses (docs/upf.md "Routes to the devices"):
   * `auto` is `on` where the AMF set may run (PostgreSQL) and `off` on SQLite, decided by the service
   * (`resolveHostRoutes`); absent or `auto` here: off.
   */
  hostRoutes?: HostRoutesChoice;
  /** Their kernel routing table; absent: 254 (main). */
  routeTable?: number;
  /** Their protocol number (`ip route ... proto <n>`), what a routing daemon learns them by; absent: 200. */
  routeProtocol?: number;
}

type HostRoutesChoice = 'auto' | 'on' | 'off';

/** Protocol number of the host routes by default: none of iproute2's reserved ones (rt_protos). */
export const DEFAULT_ROUTE_PROTOCOL = 200;

export const DEFAULT_UPF_SETTINGS: UpfSettings = {
  n3Address: '127.0.0.1',
  n3Port: 2152,
  tunName: 'pmn-n6',
  maxSessions: 65_536,
  maxFlows: 262_144,
  errorIndicationsPerSecond: 100,
  datapath: 'auto',
  hostRoutes: 'auto',
  routeTable: 254,
  routeProtocol: DEFAULT_ROUTE_PROTOCOL,
};

/**
 * `auto` decided: host routes where processes share the database (the AMF set, whose members take
 * each other's sessions over, so the network must learn which member serves an address), none for a
 * single process on SQLite (the operator's pool route, as before).
 */
export const resolveHostRoutes = (settings: UpfSettings, sharedDatabase: boolean): UpfSettings =>
  settings.hostRoutes === 'auto' || settings.hostRoutes === undefined
    ? { ...settings, hostRoutes: sharedDatabase ? 'on' : 'off' }
    : settings;

/** The settings' names in the configuration file; `PMN_<NAME>` in the environment, `--name-with-dashes` as flags. */
export const UPF_KEYS = [
  'n3_address',
  'n3_port',
  'n6_tun',
  'upf_max_sessions',
  'upf_max_flows',
  'upf_error_indications_per_second',
  'upf_datapath',
  'n6_interface',
  'n6_host_routes',
  'n6_route_table',
  'n6_route_protocol',
] as const;

export type UpfKey = (typeof UPF_KEYS)[number];

const INTEGERS = {
  n3_port: ['n3Port', 0, 65535],
  upf_max_sessions: ['maxSessions', 1, 4_194_304],
  upf_max_flows: ['maxFlows', 1, 16_777_216],
  upf_error_indications_per_second: ['errorIndicationsPerSecond', 1, 1_000_000],
  // Tables 0 (unspecified) and above 2^32-1 do not exist; 253-255 are default, main and local.
  n6_route_table: ['routeTable', 1, 4_294_967_295],
  n6_route_protocol: ['routeProtocol', 1, 255],
} as const;

// Linux interface names: 1..15 characters, no '/', ':' or white space (dev_valid_name).
const INTERFACE_NAME = /^[^/:\s]{1,15}$/;

/**
 * Applies one source's UPF settings (YAML values, or strings from the environment and flags) over
 * `current`; the error names the setting and the source.
 */
export function applyUpfSettings(
  current: UpfSettings,
  raw: Partial<Record<UpfKey, unknown>>,
  source: string,
): { ok: true; settings: UpfSettings } | { ok: false; error: string } {
  const settings = { ...current };
  if (raw.n3_address !== undefined) {
    const address = raw.n3_address;
    if (typeof address !== 'string' || isIP(address) === 0)
      return { ok: false, error: `${source}: n3_address must be an IP address` };
    settings.n3Address = address;
  }
  if (raw.n6_tun !== undefined) {
    if (typeof raw.n6_tun !== 'string' || !INTERFACE_NAME.test(raw.n6_tun))
      return { ok: false, error: `${source}: n6_tun must be an interface name of 1..15 characters` };
    settings.tunName = raw.n6_tun;
  }
  if (raw.upf_datapath !== undefined) {
    const choice = raw.upf_datapath;
    if (choice !== 'auto' && choice !== 'xdp' && choice !== 'tun')
      return { ok: false, error: `${source}: upf_datapath must be auto, xdp or tun` };
    settings.datapath = choice;
  }
  if (raw.n6_interface !== undefined) {
    if (typeof raw.n6_interface !== 'string' || !INTERFACE_NAME.test(raw.n6_interface))
      return { ok: false, error: `${source}: n6_interface must be an interface name of 1..15 characters` };
    settings.n6Interface = raw.n6_interface;
  }
  if (raw.n6_host_routes !== undefined) {
    const choice = raw.n6_host_routes;
    if (choice !== 'auto' && choice !== 'on' && choice !== 'off')
      return { ok: false, error: `${source}: n6_host_routes must be auto, on or off` };
    settings.hostRoutes = choice;
  }
  for (const [key, [field, min, max]] of Object.entries(INTEGERS) as [
    keyof typeof INTEGERS,
    (typeof INTEGERS)[keyof typeof INTEGERS],
  ][]) {
    const value = raw[key];
    if (value === undefined) continue;
    const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max)
      return { ok: false, error: `${source}: ${key} must be an integer in ${min}..${max}` };
    settings[field] = number;
  }
  return { ok: true, settings };
}
