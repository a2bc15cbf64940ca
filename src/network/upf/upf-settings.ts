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
}

export const DEFAULT_UPF_SETTINGS: UpfSettings = {
  n3Address: '127.0.0.1',
  n3Port: 2152,
  tunName: 'pmn-n6',
  maxSessions: 65_536,
  maxFlows: 262_144,
  errorIndicationsPerSecond: 100,
  datapath: 'auto',
};

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
] as const;

export type UpfKey = (typeof UPF_KEYS)[number];

const INTEGERS = {
  n3_port: ['n3Port', 0, 65535],
  upf_max_sessions: ['maxSessions', 1, 4_194_304],
  upf_max_flows: ['maxFlows', 1, 16_777_216],
  upf_error_indications_per_second: ['errorIndicationsPerSecond', 1, 1_000_000],
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
