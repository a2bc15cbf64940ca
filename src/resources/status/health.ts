/**
 * What runs on the network side, as the N2 component started by main.ts exposes it (core/n2.wiring.ts):
 * where radios reach the AMF, and the UPF's datapath. Absent (tests, a core without N2) reads as stopped.
 */
export interface NetworkSource {
  endpoint():
    { transport: string; local: readonly { address: string; port: number }[]; udpPort?: number } | undefined;
  upf(): { n3Port: number; tunName: string; datapath: { kind: string; reason: string } } | undefined;
}

/** The readings the health view takes from the core's metrics (metrics/metrics.ts `read`). */
interface MetricsReader {
  read(name: string): Promise<number | undefined>;
}

export interface Health {
  uptime_seconds: number;
  n2:
    | { running: true; transport: string; listeners: string[]; udp_port?: number }
    | { running: false; transport: null; listeners: [] };
  upf:
    | { running: true; datapath: string; reason: string; n3_port: number; n6_interface: string }
    | { running: false; datapath: null };
  database: { healthy: boolean; size_bytes: number | null };
  records: { queue_depth: number };
}

/** An address and port as a client writes them (`[::1]:38412` for IPv6). */
function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * The service's health for an operator: how long it has run, whether N2 and the UPF run and how, whether
 * the database answers and its size, and the records waiting to be written. Every reading
 * is taken when asked; a failed one says so rather than failing the whole answer.
 */
export function createHealthReader(deps: {
  metrics: MetricsReader;
  network: NetworkSource | undefined;
  uptimeSeconds?: () => number;
}) {
  const uptime = deps.uptimeSeconds ?? (() => process.uptime());

  async function reading(name: string): Promise<number | undefined> {
    try {
      return await deps.metrics.read(name);
    } catch {
      return undefined;
    }
  }

  return async function health(): Promise<Health> {
    const endpoint = deps.network?.endpoint();
    const upf = deps.network?.upf();
    // The size is read from the database itself (SQLite's page counts, PostgreSQL's pg_database_size):
    // an answer is the database answering.
    const [size, depth] = await Promise.all([
      reading('pmn_database_size_bytes'),
      reading('pmn_records_queue_depth'),
    ]);
    return {
      uptime_seconds: Math.floor(uptime()),
      n2: endpoint
        ? {
            running: true,
            transport: endpoint.transport,
            listeners: endpoint.local.map((local) => hostPort(local.address, local.port)),
            ...(endpoint.udpPort === undefined ? {} : { udp_port: endpoint.udpPort }),
          }
        : { running: false, transport: null, listeners: [] },
      upf: upf
        ? {
            running: true,
            datapath: upf.datapath.kind,
            reason: upf.datapath.reason,
            n3_port: upf.n3Port,
            n6_interface: upf.tunName,
          }
        : { running: false, datapath: null },
      database: { healthy: size !== undefined, size_bytes: size ?? null },
      records: { queue_depth: depth ?? 0 },
    };
  };
}
