import assert from 'node:assert/strict';
import { systemTimers } from '../../src/clock.ts';
import { DEFAULT_AMF_IDENTITY } from '../../src/network/amf/amf-identity.ts';
import { createN2Service } from '../../src/network/amf/n2-service.ts';
import { decodeNgapEvent } from '../../src/network/amf/ngap-event-decoder.ts';
import { createNgapMetrics } from '../../src/network/network-metrics.ts';
import type { GnbConfig } from '../../src/network/simulator/gnb-config.ts';
import type { NgapExchange } from '../../src/network/simulator/gnb.ts';
import { SimulatedGnb } from '../../src/network/simulator/gnb.ts';
import type { N2Transport } from '../../src/network/transport/n2-transport.ts';
import type { SctpParameters } from '../../src/network/transport/sctp/sctp-config.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { createTestApp, initialize } from '../helpers/test-app.ts';
import { tshark } from '../helpers/tshark.ts';

/**
 * The real service for end-to-end N2 tests: `createCore` and the HTTP app (createTestApp), the AMF's
 * N2 service on the `udp` transport (userland SCTP over UDP on loopback, an ephemeral UDP port), and a
 * RAN-side udp endpoint that simulated gNBs share. Assertions go through the management API.
 *
 * The N2 service is composed here from the core's ports, as the AMF's wiring does in main: when the
 * core starts N2 itself with a udp listener on an ephemeral port, this harness should use that instead.
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
  amf: { address: string; port: number };
  /** A simulated node on the shared RAN endpoint (not yet connected). */
  gnb(config: GnbConfig): SimulatedGnb;
  /** GET with the admin's token; asserts 200 and returns `result`. */
  get<T>(url: string): Promise<T>;
  /** Waits until `check` returns a value other than undefined (the records pipeline writes in batches). */
  until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs?: number): Promise<T>;
  /** Every PDU the gNBs of this service received, for tshark. */
  received: NgapExchange[];
  /** The RAN side stops taking packets (a radio that lost power): the AMF hears nothing more from it. */
  silenceRan(): void;
  close(): Promise<void>;
}

export interface N2ServiceOptions {
  /** SCTP parameters of both udp endpoints (short timers for path failure). */
  sctp?: Partial<SctpParameters>;
  /** The AMF on another transport (a system test's `raw`) at this address, instead of udp on loopback. */
  amfTransport?: { transport: N2Transport; address: string };
}

export async function startN2Service(options: N2ServiceOptions = {}): Promise<N2Service> {
  const t = await createTestApp();
  const token = await initialize(t);
  const amfSide = await createUdpTransport({
    addresses: ['127.0.0.1'],
    udpPort: 0,
    ...(options.sctp === undefined ? {} : { params: options.sctp }),
  });
  const amf = { address: options.amfTransport?.address ?? '127.0.0.1', port: 38412 };
  const n2 = createN2Service({
    transport: options.amfTransport?.transport ?? amfSide.transport,
    listen: { addresses: [amf.address], port: amf.port },
    identity: DEFAULT_AMF_IDENTITY,
    operatorConfiguration: t.core.ports.operatorConfiguration,
    configurationEvents: t.core.ports.configurationEvents,
    state: t.core.networkState,
    records: t.core.records.ingestion,
    metrics: createNgapMetrics(t.core.metrics),
    logger: t.core.logger,
    timers: systemTimers,
  });
  // main registers the NGAP decoder for the `decoded` view of radio events (network.md section 3).
  t.core.records.decoders.register('NGAP', decodeNgapEvent);
  await n2.start();
  const ranSide = await createUdpTransport({
    addresses: ['127.0.0.1'],
    udpPort: 0,
    peerUdpPort: amfSide.link.port,
    ...(options.sctp === undefined ? {} : { params: options.sctp }),
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
    gnb(config) {
      const gnb = new SimulatedGnb({ config, transport: ranSide.transport, amf: [amf] });
      gnb.on((event) => {
        if (event.type === 'received') received.push(event.exchange);
      });
      return gnb;
    },
    get,
    async until(check, what) {
      for (const end = Date.now() + 5000; ;) {
        const value = await check();
        if (value !== undefined) return value;
        if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    received,
    silenceRan() {
      ranSide.link.onPacket(() => undefined);
    },
    async close() {
      await n2.stop();
      await amfSide.transport.close();
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
