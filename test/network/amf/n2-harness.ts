import pino, { type Logger } from 'pino';
import { createConfigurationEvents } from '../../../src/core/configuration-events.ts';
import { createMetrics } from '../../../src/metrics/metrics.ts';
import { DEFAULT_AMF_IDENTITY, type AmfIdentity } from '../../../src/network/amf/context/amf-identity.ts';
import {
  createN2Service,
  type N2Service,
  type N2ServiceOptions,
} from '../../../src/network/amf/n2/n2-service.ts';
import type { UeSignalling } from '../../../src/network/amf/n2/ue-signalling.ts';
import { createNgapMetrics } from '../../../src/network/network-metrics.ts';
import { createNetworkEvents, type NetworkEvents } from '../../../src/network/events/network-events.ts';
import { createNetworkState, type NetworkState } from '../../../src/network/network-state.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../../../src/network/ngap/ngap-codec.ts';
import type { OperatorConfiguration } from '../../../src/network/ports/operator-configuration.ts';
import { FakeN2Network, type FakeN2Association } from '../../helpers/fake-n2-transport.ts';
import type { AssociationEvent, InboundMessage } from '../../../src/network/transport/n2-transport.ts';
import type { RadioEventInput, RadioLogInput } from '../../../src/records/record-inputs.ts';
import { manualClock } from '../../helpers/test-app.ts';

/** The operator of decisions section 2: MCC 001, MNC 01, TAC 000001, one slice SST 1 SD 010203. */
export function operatorConfiguration(overrides: Partial<OperatorConfiguration> = {}): OperatorConfiguration {
  return {
    plmn: { mcc: '001', mnc: '01' },
    tacs: ['000001'],
    op: Buffer.alloc(16),
    slices: [{ sst: 1, sd: '010203' }],
    nasSecurity: { ciphering: ['NEA0'], integrity: ['NIA2'] },
    homeNetworkKeys: [],
    n2AllowedPeers: [],
    ...overrides,
  };
}

/** One simulated radio's end of an association: what it received, and a way to send raw bytes. */
export interface TestRadio {
  /** The radio's end; its `peer` is the AMF's end (to simulate what the AMF's side sees). */
  association: FakeN2Association;
  received: { streamId: number; bytes: Uint8Array; pdu: NGAPPDU; messageType: string }[];
  events: AssociationEvent[];
  send(pdu: NGAPPDU | Uint8Array, streamId?: number): void;
  /** Every message type received so far. */
  types(): string[];
}

export interface Harness {
  network: FakeN2Network;
  n2: N2Service;
  state: NetworkState;
  /** What N2 and the AMF report; `state` is built from them. */
  networkEvents: NetworkEvents;
  clock: ReturnType<typeof manualClock>;
  operator: { configuration: OperatorConfiguration };
  events: ReturnType<typeof createConfigurationEvents>;
  radioEvents: RadioEventInput[];
  radioLogs: RadioLogInput[];
  metrics: ReturnType<typeof createMetrics>;
  /** A radio from 127.0.0.1 unless `address` says otherwise, to the AMF's first endpoint unless `to` says. */
  connect(address?: string, to?: { address: string; port: number }): Promise<TestRadio>;
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** The N2 service on the fake transport, with in-memory records and a manual clock. */
export async function createHarness(
  options: {
    identity?: AmfIdentity;
    ue?: UeSignalling;
    operator?: Partial<OperatorConfiguration>;
    /** Silent unless a test reads the logs. */
    logger?: Logger;
    /** The process configuration's N2 allowlist (`n2_allowed_peers`). */
    allowedPeers?: string[];
    /** The network events the UE side emits too (an AMF built before the harness); new ones unless given. */
    networkEvents?: NetworkEvents;
    /** The AMF set this AMF is a member of; its own GUAMI alone without. */
    amfSet?: N2ServiceOptions['amfSet'];
    /** The clock, when what was built before the harness already runs on it; a new one unless given. */
    clock?: ReturnType<typeof manualClock>;
    /** Further endpoints offered to radios for more TNL associations (`n2_further_endpoints`). */
    furtherEndpoints?: N2ServiceOptions['furtherEndpoints'];
  } = {},
): Promise<Harness> {
  const clock = options.clock ?? manualClock();
  // With the clock, an association tells how long its peer has been silent (messages only: no heartbeats).
  const network = new FakeN2Network({}, { clock });
  const networkEvents = options.networkEvents ?? createNetworkEvents({ logger: pino({ level: 'silent' }) });
  const state = createNetworkState({ clock, events: networkEvents });
  const operator = { configuration: operatorConfiguration(options.operator) };
  const events = createConfigurationEvents({ logger: pino({ level: 'silent' }) });
  const radioEvents: RadioEventInput[] = [];
  const radioLogs: RadioLogInput[] = [];
  const metrics = createMetrics();
  const n2 = createN2Service({
    transport: network.transport(),
    listen: { addresses: ['127.0.0.10'], port: 38412 },
    identity: options.identity ?? DEFAULT_AMF_IDENTITY,
    operatorConfiguration: { getOperatorConfiguration: async () => structuredClone(operator.configuration) },
    configurationEvents: events,
    events: networkEvents,
    records: {
      recordRadioEvent: (event) => radioEvents.push(event) > 0,
      recordRadioLog: (log) => radioLogs.push(log) > 0,
    },
    metrics: createNgapMetrics(metrics),
    logger: options.logger ?? pino({ level: 'silent' }),
    timers: clock,
    ...(options.ue === undefined ? {} : { ue: options.ue }),
    ...(options.allowedPeers === undefined ? {} : { allowedPeers: options.allowedPeers }),
    ...(options.amfSet === undefined ? {} : { amfSet: options.amfSet }),
    ...(options.furtherEndpoints === undefined ? {} : { furtherEndpoints: options.furtherEndpoints }),
  });
  await n2.start();
  const radioTransport = network.transport();

  return {
    network,
    n2,
    state,
    networkEvents,
    clock,
    operator,
    events,
    radioEvents,
    radioLogs,
    metrics,
    async connect(address = '127.0.0.1', to = { address: '127.0.0.10', port: 38412 }) {
      const received: TestRadio['received'] = [];
      const events: AssociationEvent[] = [];
      const association = (await radioTransport.connect(
        { remote: [to], local: { addresses: [address] } },
        () => ({
          message(message: InboundMessage) {
            const decoded = decodeNgapPdu(message.payload);
            if (!decoded.ok) throw new Error(`the AMF sent an undecodable PDU: ${decoded.error}`);
            received.push({
              streamId: message.streamId,
              bytes: message.payload,
              pdu: decoded.value,
              messageType: ngapMessageType(decoded.value),
            });
          },
          event: (event) => void events.push(event),
        }),
      )) as FakeN2Association;
      await network.settled();
      return {
        association,
        received,
        events,
        send(pdu, streamId = 0) {
          const bytes = pdu instanceof Uint8Array ? pdu : encodeNgapPdu(pdu);
          const result = association.send(streamId, 60, bytes);
          if (!result.ok) throw new Error(`send refused: ${result.error}`);
        },
        types: () => received.map((r) => r.messageType),
      };
    },
    async settled() {
      await network.settled();
      await n2.settled();
      await network.settled();
    },
    async close() {
      await n2.stop();
      await radioTransport.close();
    },
  };
}
