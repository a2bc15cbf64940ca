import assert from 'node:assert/strict';
import { systemTimers, type Clock, type Timers } from '../../src/clock.ts';
import { MANUAL_TIME_AMF_SET } from '../helpers/manual-time.ts';
import { createN2, DEFAULT_N2_SETTINGS } from '../../src/core/n2.wiring.ts';
import type { AmfSettings } from '../../src/network/amf/amf-settings.ts';
import type { OfferedEndpoint } from '../../src/network/amf/n2/tnl-associations.ts';
import { createN2Service } from '../../src/network/amf/n2/n2-service.ts';
import { createNgapMetrics } from '../../src/network/network-metrics.ts';
import type { GnbConfig } from '../../src/simulator/gnb-config.ts';
import type { NgapExchange } from '../../src/simulator/gnb.ts';
import { SimulatedGnb } from '../../src/simulator/gnb.ts';
import type { TransportAddress } from '../../src/network/transport/n2-transport.ts';
import { NGAP_PORT } from '../../src/network/transport/n2-transport.ts';
import type { SctpParameters } from '../../src/network/transport/sctp/sctp-config.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { createApiToken, createTestApp, initialize } from '../helpers/test-app.ts';
import { tshark } from '../helpers/tshark.ts';
import { until } from '../helpers/until.ts';

/**
 * The real service for end-to-end N2 tests: `createCore` and the HTTP app (createTestApp), the AMF's N2
 * as main.ts wires it (`createN2` on the `udp` transport, ephemeral SCTP and UDP ports, loopback), and
 * a RAN-side udp endpoint that simulated gNBs share. Assertions go through the management API.
 *
 * `createN2` takes no SCTP parameters, so a test that needs short SCTP timers (path failure) gets the
 * AMF's N2 service composed here the same way on a udp endpoint made with them.
 */

/** The first-start operator (network-defaults.ts): PLMN 001-01, TAC 000001, slice SST 1. */
export const OPERATOR_PLMN = { mcc: '001', mnc: '01' };

export function gnbConfig(n: number, overrides: Partial<GnbConfig> = {}): GnbConfig {
  return {
    plmn: OPERATOR_PLMN,
    node: { kind: 'gNB', value: n, bitLength: 22 },
    name: `gnb-${n}`,
    supportedTas: [{ tac: 1, plmns: [{ plmn: OPERATOR_PLMN, slices: [{ sst: 1 }] }] }],
    ...overrides,
  };
}

export interface N2Service {
  t: TestApp;
  token: string;
  /** The AMF's SCTP address. */
  amf: TransportAddress;
  /** The AMF's UDP encapsulation port (RFC 6951), for a RAN side of its own (the simulator command). */
  amfUdpPort: number;
  /**
   * A simulated node on the shared RAN endpoint (not yet connected); `furtherAssociations` sets up the
   * TNL associations the AMF offers.
   */
  gnb(config: GnbConfig, options?: { furtherAssociations?: boolean }): SimulatedGnb;
  /** GET with the admin's token; asserts 200 and returns `result`. */
  get<T>(url: string): Promise<T>;
  /** Waits until `check` returns a value other than undefined (the records pipeline writes in batches). */
  until<T>(check: () => Promise<T | undefined>, what: string): Promise<T>;
  /** Every PDU the gNBs of this service received, for tshark. */
  received: NgapExchange[];
  /** The RAN side stops taking packets (a radio that lost power): the AMF hears nothing more from it. */
  silenceRan(): void;
  /** The AMF's further endpoints change (`N2Service.changeFurtherEndpoints`); the endpoints as bound. Not with `sctp`. */
  changeFurtherEndpoints(next: readonly OfferedEndpoint[]): Promise<readonly OfferedEndpoint[]>;
  close(): Promise<void>;
}

export interface N2ServiceOptions {
  /** SCTP parameters of both udp endpoints (short timers for path failure). */
  sctp?: Partial<SctpParameters>;
  /**
   * The AMF on the `raw` transport (or `transport`, e.g. the kernel's SCTP in a qemu guest) at this
   * address and port 38412 (a system test), instead of udp.
   */
  raw?: { address: string; transport?: 'raw' | 'kernel' };
  /**
   * One time source for the core (records, positioning sessions, network state) and N2 (the AMF's NAS
   * timers, association timers, the UPF's reports), e.g. `ManualTime` (test/helpers/manual-time.ts): the
   * test moves it instead of waiting. With `sctp`, the RAN side's SCTP timers run on it too, so that both
   * ends of the association see the same time. The system's clock and timers unless given.
   */
  time?: Clock & Timers;
  /** The AMF's timers and limits (e.g. a small `maxUeContexts`); the defaults unless given. Not with `sctp`. */
  amf?: Partial<AmfSettings>;
  /** The UPF (its settings and forwarder) for PDU sessions, e.g. session-service.ts's recording one. Not with `sctp`. */
  upf?: NonNullable<Parameters<typeof createN2>[2]>['upf'];
  /** Further endpoints the AMF offers radios (`n2_further_endpoints`); the first gNB sets them up. Not with `sctp`. */
  furtherEndpoints?: OfferedEndpoint[];
  /**
   * The AMF's address and UDP encapsulation port on udp (default 127.0.0.1 and a free port): a second
   * service on another loopback address with the first one's port is reachable from one RAN transport.
   */
  at?: { address: string; udpPort: number };
}

export async function startN2Service(options: N2ServiceOptions = {}): Promise<N2Service> {
  const { time } = options;
  const t = await createTestApp(time === undefined ? {} : { clock: time, timers: time });
  const timers = time ?? systemTimers;
  const session = await initialize(t);
  // A session expires as a manual time moves on (a test may move it by an hour); an API token does not.
  const token = time === undefined ? session : await createApiToken(t, session, 'e2e');
  let amf: TransportAddress;
  let udpPort: number;
  let stopN2: () => Promise<void>;
  let changeFurtherEndpoints: N2Service['changeFurtherEndpoints'] = () =>
    Promise.reject(new Error('not with sctp'));
  if (options.sctp === undefined) {
    const n2 = createN2(
      t.core,
      {
        ...DEFAULT_N2_SETTINGS,
        transport: options.raw === undefined ? 'udp' : (options.raw.transport ?? 'raw'),
        addresses: [options.raw?.address ?? options.at?.address ?? '127.0.0.1'],
        port: options.raw === undefined ? 0 : NGAP_PORT,
        udpPort: options.at?.udpPort ?? 0,
        ...(time === undefined ? {} : { amfSet: MANUAL_TIME_AMF_SET }),
        ...(options.furtherEndpoints === undefined ? {} : { furtherEndpoints: options.furtherEndpoints }),
      },
      {
        ...(time === undefined ? {} : { timers: time, clock: time }),
        ...(options.amf === undefined ? {} : { amf: options.amf }),
        ...(options.upf === undefined ? {} : { upf: options.upf }),
      },
    );
    await n2.start();
    const endpoint = n2.endpoint();
    assert.ok(endpoint?.local[0]);
    amf = endpoint.local[0];
    udpPort = endpoint.udpPort ?? 0;
    stopN2 = () => n2.stop();
    changeFurtherEndpoints = (next) => n2.service()!.changeFurtherEndpoints(next);
  } else {
    const amfSide = await createUdpTransport({
      addresses: ['127.0.0.1'],
      udpPort: 0,
      params: options.sctp,
      ...(time === undefined ? {} : { clock: time, timers: time }),
    });
    const n2 = createN2Service({
      transport: amfSide.transport,
      listen: { addresses: ['127.0.0.1'], port: NGAP_PORT },
      identity: DEFAULT_N2_SETTINGS.amf,
      operatorConfiguration: t.core.ports.operatorConfiguration,
      configurationEvents: t.core.ports.configurationEvents,
      events: t.core.networkEvents,
      records: t.core.records.ingestion,
      metrics: createNgapMetrics(t.core.metrics),
      logger: t.core.logger,
      timers,
    });
    await n2.start();
    amf = { address: '127.0.0.1', port: NGAP_PORT };
    udpPort = amfSide.link.port;
    stopN2 = () => n2.stop();
  }
  const ranSide = await createUdpTransport({
    addresses: ['127.0.0.1'],
    udpPort: 0,
    peerUdpPort: udpPort,
    ...(options.sctp === undefined ? {} : { params: options.sctp }),
    ...(options.sctp === undefined || time === undefined ? {} : { clock: time, timers: time }),
  });
  const received: NgapExchange[] = [];

  const get = async <T>(url: string): Promise<T> => {
    const response = await t.request({ method: 'GET', url, token });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return response.json<{ result: T }>().result;
  };

  return {
    t,
    token,
    amf,
    amfUdpPort: udpPort,
    gnb(config, gnbOptions = {}) {
      const gnb = new SimulatedGnb({ config, transport: ranSide.transport, amf: [amf], ...gnbOptions });
      gnb.on((event) => {
        if (event.type === 'received') received.push(event.exchange);
      });
      return gnb;
    },
    get,
    until: (check, what) => until(what, check, () => '', { everyMs: 20 }),
    received,
    silenceRan() {
      ranSide.link.onPacket(() => undefined);
    },
    changeFurtherEndpoints: (next) => changeFurtherEndpoints(next),
    async close() {
      await stopN2();
      await ranSide.transport.close();
      await t.close();
    },
  };
}

/** tshark reads every PDU the service sent the simulated gNBs as the intended message, intact. */
export async function assertTsharkAgrees(received: readonly NgapExchange[]): Promise<void> {
  if (received.length === 0) return;
  const verdicts = await tshark(
    'ngap',
    received.map((exchange) => exchange.bytes),
  );
  verdicts.forEach((verdict, i) => {
    const exchange = received[i]!;
    assert.notEqual(
      exchange.messageType,
      'Unknown',
      `the service sent a PDU that does not decode: ${exchange.error}`,
    );
    assert.equal(verdict.malformed, false, `${exchange.messageType} malformed`);
    assert.equal(verdict.expert, '', `${exchange.messageType}: ${verdict.expert}`);
    assert.ok(
      verdict.info.includes(exchange.messageType),
      `tshark says ${verdict.info}, we ${exchange.messageType}`,
    );
  });
}
