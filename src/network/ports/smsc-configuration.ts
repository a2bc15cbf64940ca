// The SMSC link's configuration as the network side reads it (docs/sms.md, "SMSC link"): set through
// the API (/api/v1/sms/smsc), stored by the core with its password sealed; served by
// storage/network-ports/smsc-configuration.ts.

export interface SmscConfiguration {
  host: string;
  port: number;
  systemId: string;
  /** In the clear: the link sends it in bind_transceiver. */
  password: string;
  systemType: string;
  /** False: configured but kept unbound. */
  enabled: boolean;
}

/** A change is told as a configuration event of resource `smsc-link` (ports/configuration-events.ts). */
export interface SmscConfigurationPort {
  /** The configuration now, or undefined when none is set. */
  read(): Promise<SmscConfiguration | undefined>;
}
