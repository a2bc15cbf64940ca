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
}

export const DEFAULT_UPF_SETTINGS: UpfSettings = {
  n3Address: '127.0.0.1',
  n3Port: 2152,
  tunName: 'pmn-n6',
  maxSessions: 65_536,
  maxFlows: 262_144,
  errorIndicationsPerSecond: 100,
};
