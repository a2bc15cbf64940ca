import assert from 'node:assert/strict';
import type { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { UeOptions } from '../../src/simulator/ue/simulated-ue.ts';
import { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import type { UeConfig } from '../../src/simulator/ue/ue-config.ts';
import { ALL_ALGORITHMS } from '../../src/simulator/ue/ue-config.ts';
import type { N2Service, N2ServiceOptions } from './n2-service.ts';
import { gnbConfig, OPERATOR_PLMN, startN2Service } from './n2-service.ts';

/**
 * The real service (n2-service.ts: core, HTTP app, the AMF's N2 with its UE side as main.ts wires it, udp
 * transport) with a simulated gNB and UEs behind it, for the registration end-to-end tests. Subscribers
 * and home network keys are provisioned through the management API; assertions go through it too.
 */

export const K = '465b5ce8b199b49faa5f0a2ee238a6bc';
export const OPC = 'e8ed289deba952e4283b54e88e6183ca';
export const IMEISV = '3569380356438091';

/** The e2e subscriber's UE: K and OPc above, SUCI null, every algorithm, slice SST 1; `config` overrides. */
export function testUeConfig(imsi: string, config: Partial<UeConfig> = {}): UeConfig {
  return {
    imsi,
    plmn: OPERATOR_PLMN,
    key: Buffer.from(K, 'hex'),
    opc: Buffer.from(OPC, 'hex'),
    suci: { scheme: 'null' },
    imeisv: IMEISV,
    securityCapability: ALL_ALGORITHMS,
    requestedNssai: [{ sst: 1 }],
    ...config,
  };
}
/** The IMEI of IMEISV: 14 digits and the Luhn check digit (TS 23.003 6.2.1). */
export const IMEI = '356938035643809';
export const imsiOf = (n: number): string => `00101${String(n).padStart(10, '0')}`;

export interface RegistrationService extends N2Service {
  gnb1: SimulatedGnb;
  ues: GnbUes;
  /** POST /api/v1/subscribers with K, OPc and SQN 0 under the default profile. */
  provision(imsi: string): Promise<void>;
  /** POST /api/v1/operator/home-network-keys (generated private key); the public key. */
  homeNetworkKey(scheme: 'A' | 'B', id: number): Promise<Buffer>;
  ue(config?: Partial<UeConfig>, options?: Partial<UeOptions>): SimulatedUe;
  request(method: 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown): Promise<number>;
}

/** The service on udp, or with `raw` on the raw transport (a system test; its gNB is then not connected). */
export async function startRegistrationService(options: N2ServiceOptions = {}): Promise<RegistrationService> {
  const s = await startN2Service(options);
  const gnb1 = s.gnb(gnbConfig(1, { name: 'gnb-1' }), {
    furtherAssociations: options.furtherEndpoints !== undefined,
  });
  const ues = new GnbUes(gnb1, { plmn: OPERATOR_PLMN, nrCellIdentity: 0x4001, tac: 1 });
  if (options.raw === undefined) {
    await gnb1.connect();
    assert.equal((await gnb1.ngSetup()).outcome, 'accepted');
  }
  const request: RegistrationService['request'] = async (method, url, payload) => {
    const response = await s.t.request({
      method,
      url,
      token: s.token,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return response.statusCode;
  };
  return {
    ...s,
    gnb1,
    ues,
    request,
    async provision(imsi) {
      const status = await request('POST', '/api/v1/subscribers', {
        imsi,
        key: K,
        opc: OPC,
        sequenceNumber: '000000000000',
        profile_name: 'default',
      });
      assert.equal(status, 201, `provision ${imsi}`);
    },
    async homeNetworkKey(scheme, id) {
      const response = await s.t.request({
        method: 'POST',
        url: '/api/v1/operator/home-network-keys',
        token: s.token,
        payload: { id, scheme },
      });
      assert.equal(response.statusCode, 201, response.body);
      return Buffer.from(response.json<{ result: { public_key: string } }>().result.public_key, 'hex');
    },
    ue(config = {}, options = {}) {
      return new SimulatedUe({ config: testUeConfig(imsiOf(1), config), radio: ues, ...options });
    },
  };
}

export interface SubscriberStatus {
  registered: boolean;
  radio_access_types: string[];
  imei: string;
  ciphering_algorithm: string;
  integrity_algorithm: string;
  last_seen_at: string;
  last_seen_radio: string;
  serving_amf: string;
}

export interface SubscriberLog {
  level: string;
  imsi: string;
  event: string;
  direction: string;
  raw: string;
  details: string;
  timestamp: string;
}

export interface Page<T> {
  items: T[];
  total_count: number;
}

/** The `details` JSON of a log row or radio event. */
/**
 * The `ims` data network, and a policy letting the default profile reach it on the default slice: the
 * AMF then asks the radio (UE Radio Capability Check) before it offers a voice-capable UE IMS voice.
 */
export async function makeImsReachable(s: RegistrationService): Promise<void> {
  assert.equal(await s.request('POST', '/api/v1/networking/data-networks', { name: 'ims' }), 201);
  const policy = {
    name: 'ims',
    bitrate_uplink: '1 Mbps',
    bitrate_downlink: '1 Mbps',
    var5qi: 5,
    arp: 1,
    data_network_name: 'ims',
    profile_name: 'default',
    slice_name: 'default',
  };
  assert.equal(await s.request('POST', '/api/v1/policies', policy), 201);
}

export function detailsOf(row: { details: string } | undefined): Record<string, string | undefined> {
  return JSON.parse(row?.details ?? '{}') as Record<string, string | undefined>;
}

/** The subscriber's status object. */
export async function statusOf(s: N2Service, imsi: string): Promise<SubscriberStatus> {
  const detail = await s.get<{ status: SubscriberStatus }>(`/api/v1/subscribers/${imsi}`);
  return detail.status;
}

/** Waits until the subscriber's status satisfies `check` (records are written in batches). */
export function statusUntil(
  s: N2Service,
  imsi: string,
  check: (status: SubscriberStatus) => boolean,
  what: string,
): Promise<SubscriberStatus> {
  return s.until(async () => {
    const status = await statusOf(s, imsi);
    return check(status) ? status : undefined;
  }, what);
}

/** The subscriber's logs, oldest first. */
export async function logsOf(s: N2Service, imsi: string): Promise<SubscriberLog[]> {
  const page = await s.get<Page<SubscriberLog>>(`/api/v1/logs/subscribers?imsi=${imsi}&per_page=100`);
  // The API lists newest first, by timestamp then insertion (ids break ties within a millisecond).
  return [...page.items].reverse();
}

/**
 * Waits until the subscriber is shown registered, then checks every status field (network.md section 5):
 * 5G, the IMEI of its IMEISV, NEA2/NIA2 (the operator's first choices among the simulator's algorithms),
 * seen within a minute of `now` (the service's clock, the system's unless given) through `radio`.
 */
export async function assertShownRegistered(
  s: N2Service,
  imsi: string,
  expected: { radio: string; imei: string; now?: number },
): Promise<void> {
  // The serving member is read from the stored UE context, written just after Registration Complete
  // without holding it back (on PostgreSQL a database write: docs/amf-set.md).
  const { last_seen_at: lastSeenAt, ...rest } = await statusUntil(
    s,
    imsi,
    (st) => st.registered && st.serving_amf !== '',
    'registered, with its serving AMF',
  );
  assert.deepEqual(rest, {
    registered: true,
    radio_access_types: ['5G'],
    imei: expected.imei,
    ciphering_algorithm: 'NEA2',
    integrity_algorithm: 'NIA2',
    last_seen_radio: expected.radio,
    // The one member of its AMF set, named by its default amf_name.
    serving_amf: 'pmn-amf',
  });
  assert.ok(Math.abs(Date.parse(lastSeenAt) - (expected.now ?? Date.now())) < 60_000, lastSeenAt);
}

/**
 * Waits until the subscriber is shown unregistered, then checks the other fields: network.md section 5,
 * decisions section 10, the strings of a device not registered are "".
 */
export async function assertShownUnregistered(s: N2Service, imsi: string): Promise<void> {
  const status = await statusUntil(s, imsi, (st) => !st.registered, 'unregistered');
  const {
    registered,
    radio_access_types,
    imei,
    ciphering_algorithm,
    integrity_algorithm,
    last_seen_radio,
    serving_amf,
  } = status;
  const shown = {
    registered,
    radio_access_types,
    imei,
    ciphering_algorithm,
    integrity_algorithm,
    last_seen_radio,
    serving_amf,
  };
  assert.deepEqual(shown, {
    registered: false,
    radio_access_types: [],
    imei: '',
    ciphering_algorithm: '',
    integrity_algorithm: '',
    last_seen_radio: '',
    serving_amf: '',
  });
}
