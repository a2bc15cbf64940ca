import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/schemas.ts';
import type { Health } from './health.ts';
import type { InitializationState } from './initialization.ts';

const N2Status = Type.Object(
  {
    running: Type.Boolean({ description: 'true once N2 listens for radios' }),
    transport: Type.Union([Type.String(), Type.Null()], {
      description: 'kernel, raw or udp (docs/n2.md); null when N2 does not run',
    }),
    listeners: Type.Array(Type.String(), { description: 'the SCTP addresses radios connect to, host:port' }),
    udp_port: Type.Optional(Type.Integer({ description: 'udp transport only: the UDP encapsulation port' })),
  },
  { description: 'N2: where radios reach the AMF' },
);

const UpfStatus = Type.Object(
  {
    running: Type.Boolean({ description: 'true when the UPF forwards (it needs CAP_NET_ADMIN)' }),
    datapath: Type.Union([Type.String(), Type.Null()], {
      description: 'xdp or tun (docs/upf.md); null when it does not run',
    }),
    reason: Type.Optional(Type.String({ description: 'why this datapath runs' })),
    n3_port: Type.Optional(Type.Integer({ description: 'the GTP-U port on N3' })),
    n6_interface: Type.Optional(Type.String({ description: 'the N6 TUN interface' })),
  },
  { description: 'The user plane function' },
);

const HealthFields = {
  uptime_seconds: Type.Optional(Type.Integer({ description: 'seconds since the service started' })),
  n2: Type.Optional(N2Status),
  upf: Type.Optional(UpfStatus),
  database: Type.Optional(
    Type.Object({
      healthy: Type.Boolean({ description: 'true when the database answered now' }),
      size_bytes: Type.Union([Type.Integer(), Type.Null()], {
        description: 'its size (SQLite without the WAL); null when it did not answer',
      }),
    }),
  ),
  records: Type.Optional(
    Type.Object({
      queue_depth: Type.Integer({ description: 'records accepted and waiting to be written' }),
    }),
  ),
};

const StatusResult = Type.Object({
  version: Type.String({ description: 'PMN Core version' }),
  initialized: Type.Boolean({ description: 'true once the first user exists' }),
  ready: Type.Boolean({ description: 'true when the database is migrated and the service accepts work' }),
  ...HealthFields,
});

const SummaryResult = Type.Object({
  radios_connected: Type.Integer({ description: 'radios (RAN nodes) connected now' }),
  subscribers: Type.Integer({ description: 'subscribers provisioned' }),
  subscribers_registered: Type.Integer({ description: 'subscribers registered now' }),
  sessions_active: Type.Integer({ description: 'PDU sessions established now' }),
});

interface Summary {
  radios_connected: number;
  subscribers: number;
  subscribers_registered: number;
  sessions_active: number;
}

export function statusRoutes(deps: {
  initialization: InitializationState;
  version: string;
  /** The health view, for callers whose credentials are valid (any role); others get the bare status. */
  health: () => Promise<Health>;
  /** Who sent the request, on this public route: valid credentials or none (never a 401). */
  authenticated: (authorization: string | undefined) => Promise<boolean>;
  summary: () => Promise<Summary>;
}) {
  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/status',
      {
        config: { permission: 'public' },
        schema: {
          tags: ['status'],
          summary: 'Service status',
          description:
            'Without credentials: version, initialized, ready. With a valid bearer or API token of any role, also the health view: uptime, N2 and its listeners, the UPF datapath, the database and the records queue. Invalid credentials are not refused here: the answer is the one without credentials.',
          response: { 200: Envelope(StatusResult) },
        },
      },
      async (request) => {
        const status = {
          version: deps.version,
          initialized: await deps.initialization.isInitialized(),
          ready: true,
        };
        if (!(await deps.authenticated(request.headers.authorization))) return ok(status);
        return ok({ ...status, ...(await deps.health()) });
      },
    );

    app.get(
      '/api/v1/status/summary',
      {
        config: { permission: 'metrics:read' },
        schema: {
          tags: ['status'],
          summary: "The dashboard's figures",
          description:
            'The counts the dashboard shows, read now: a few bytes instead of the metrics text. Every role may read it, as it may read the metrics.',
          response: { 200: Envelope(SummaryResult) },
        },
      },
      async () => ok(await deps.summary()),
    );
  };
}
