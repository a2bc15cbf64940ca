import assert from 'node:assert/strict';
import pino, { type Logger } from 'pino';
import { AMF_5G } from '../../../src/crypto/five-g-aka.ts';
import {
  deriveKamf,
  deriveKausf,
  deriveKgnb,
  deriveKseaf,
  deriveResStar,
  servingNetworkName,
} from '../../../src/crypto/key-hierarchy.ts';
import { f1, milenage } from '../../../src/crypto/milenage.ts';
import {
  createNetworkFunctions,
  type NetworkFunctions,
  type NetworkFunctionsOptions,
} from '../../../src/core/network-functions.ts';
import type { Amf } from '../../../src/network/amf/amf.ts';
import type { AmfSettings } from '../../../src/network/amf/amf-settings.ts';
import type { AmfIdentity } from '../../../src/network/amf/context/amf-identity.ts';
import type { N2ServiceOptions } from '../../../src/network/amf/n2/n2-service.ts';
import {
  decodeNasPdu,
  encodeNasMessage,
  SECURITY_HEADER_TYPE,
  type FiveGmmMessage,
  type NasMessage,
  type NasMessageOf,
} from '../../../src/network/nas/index.ts';
import {
  createNasSecurityContext,
  makeCurrent,
  protect,
  unprotect,
  type NasSecurityContext,
} from '../../../src/network/nas-security/index.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { bits, plmnIdentity, tac } from '../../../src/network/ngap/ngap-values.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import type { AuthenticationDataPort } from '../../../src/network/ports/authentication-data.ts';
import type { OperatorConfiguration } from '../../../src/network/ports/operator-configuration.ts';
import type { SubscriptionData, SubscriptionDataPort } from '../../../src/network/ports/subscription-data.ts';
import type { HeldSubscribers } from '../../../src/network/amf/ports/held-subscribers.ts';
import type { AddressLeases } from '../../../src/network/ports/address-leases.ts';
import type { UeContextStore } from '../../../src/network/ports/ue-contexts.ts';
import type { UserPlane } from '../../../src/network/smf/smf.ts';
import type { UpfAddon } from '../../../src/network/upf/upf-addon.ts';
import type { UpfSettings } from '../../../src/network/upf/upf-settings.ts';
import type { SubscriberLogInput } from '../../../src/records/record-inputs.ts';
import { defaultSubscription } from '../../helpers/smf-ports.ts';
import { manualClock } from '../../helpers/test-app.ts';
import { createHarness, operatorConfiguration, type Harness, type TestRadio } from './n2-harness.ts';
import { ngSetupRequest } from './messages.ts';
import { createNetworkEvents } from '../../../src/network/events/network-events.ts';

/** TS 35.208 test set 1's K and OPc: any fixed key serves; these are published. */
export const KEY = Buffer.from('465b5ce8b199b49faa5f0a2ee238a6bc', 'hex');
export const OPC = Buffer.from('cd63cb71954a9f4e48a5994e37a02baf', 'hex');
export const IMSI = '001010000000001';
export const IMEISV = '4901542032375101';

/** An in-memory UDM: K, OPc and SQN per IMSI; SQN advances by 32 (SEQ + 1) per vector, as Annex C. */
export function fakeAuthenticationData(subscribers: Map<string, { sqn: bigint }>): AuthenticationDataPort & {
  resynchronised: string[];
} {
  const resynchronised: string[] = [];
  const sqnBytes = (value: bigint): Buffer => Buffer.from(value.toString(16).padStart(12, '0'), 'hex');
  return {
    resynchronised,
    async generateAuthenticationData(imsi) {
      const found = subscribers.get(imsi);
      if (found === undefined) return undefined;
      found.sqn += 32n;
      return { k: KEY, opc: OPC, sqn: sqnBytes(found.sqn) };
    },
    async resynchronise(imsi, sqnMs) {
      const found = subscribers.get(imsi);
      if (found === undefined) return false;
      found.sqn = BigInt(`0x${sqnMs.toString('hex')}`);
      resynchronised.push(imsi);
      return true;
    },
  };
}

/** The AMF tests' subscriber: the SMF tests' default subscription, any slice, a /16 pool. */
export const subscription = (imsi: string): SubscriptionData =>
  defaultSubscription(imsi, { pool: '10.45.0.0/16', slice: undefined });

export interface AmfHarness extends Harness {
  amf: Amf;
  /** The SMF built beside the AMF when the harness has a user plane. */
  smf: NetworkFunctions['smf'];
  /** The UPF, when the harness was built with `extra.upf`. */
  upf: NetworkFunctions['upf'];
  /** Location as the API's locator sees it: the AMF's fresh cell and the LMF's methods. */
  locationServices: NetworkFunctions['locationServices'];
  /** The SMSF, when the harness was built with `extra.sms`. */
  smsf: NetworkFunctions['smsf'];
  /** The SMSC link when `extra.sms.smsc` was given; the test starts and stops it. */
  smsc: NetworkFunctions['smsc'];
  subscriberLogs: SubscriberLogInput[];
  subscribers: Map<string, { sqn: bigint }>;
  subscriptions: Map<string, SubscriptionData>;
  authentication: ReturnType<typeof fakeAuthenticationData>;
  /** A radio that completed NG Setup. */
  radio(): Promise<TestRadio>;
}

/**
 * The N2 harness with the AMF's UE side on fake ports: one subscriber, IMSI, known by default. The AMF
 * reads the operator configuration from `harness.operator.configuration`, so a test can change it.
 * The network functions are built as the service builds them (core/network-functions.ts);
 * `extra.userPlane` builds the SMF over that UPF (PDU sessions); `extra.logger` is the
 * AMF's and N2's logger (silent unless a test reads the logs); `extra.ueContexts` the store the AMF
 * writes its UE contexts to (none unless given); `extra.sms` builds the SMSF over that store.
 */
export async function createAmfHarness(
  settings: Partial<AmfSettings> = {},
  operator: Partial<OperatorConfiguration> = {},
  extra: {
    userPlane?: UserPlane;
    /** The SMF over a UPF built as the service builds it, on this addon (instead of `userPlane`). */
    upf?: { settings: UpfSettings; addon: UpfAddon };
    logger?: Logger;
    ueContexts?: UeContextStore;
    /** The SMF's address leases (the AMF set's, in the database); this process's memory unless given. */
    addressLeases?: AddressLeases;
    /** The AMF's name, region, set and pointer (`pmn-amf`, 1, 1, 0 unless given): a member of a set. */
    identity?: Partial<AmfIdentity>;
    sms?: Omit<NonNullable<NetworkFunctionsOptions['sms']>, 'clock'>;
    /** Further N2 endpoints offered to radios after NG Setup (AMF TNL Association To Add List). */
    furtherEndpoints?: N2ServiceOptions['furtherEndpoints'];
    /**
     * The subscription data as the service wraps the harness's (core/remembered-subscription-data.ts),
     * told which subscribers the AMF holds; the harness's own unless given.
     */
    subscriptionData?: (port: SubscriptionDataPort) => SubscriptionDataPort & HeldSubscribers;
  } = {},
): Promise<AmfHarness> {
  const subscribers = new Map([[IMSI, { sqn: 0n }]]);
  const subscriptions = new Map([[IMSI, subscription(IMSI)]]);
  const authentication = fakeAuthenticationData(subscribers);
  const subscriberLogs: SubscriberLogInput[] = [];
  const holder: { harness?: Harness } = {};
  const configuration = operatorConfiguration({
    nasSecurity: { ciphering: ['NEA2', 'NEA0'], integrity: ['NIA2', 'NIA1'] },
    ...operator,
  });
  // One map for the AMF's UE side and N2: network state (the harness's) hears both.
  const networkEvents = createNetworkEvents({ logger: pino({ level: 'silent' }) });
  // One clock for the network functions (the UPF starts on it, before the harness exists) and N2.
  const clock = manualClock();
  const timers = {
    after: (ms: number, callback: () => void) => clock.after(ms, callback),
  };
  const events = new Set<(change: Parameters<Parameters<Harness['events']['subscribe']>[0]>[0]) => void>();
  const ownSubscriptionData: SubscriptionDataPort = {
    getSubscriptionData: async (imsi) => structuredClone(subscriptions.get(imsi)),
  };
  const subscriptionData = extra.subscriptionData?.(ownSubscriptionData);
  const functions = createNetworkFunctions({
    amf: {
      identity: {
        name: 'pmn-amf',
        regionId: 1,
        setId: 1,
        pointer: 0,
        relativeCapacity: 255,
        ...extra.identity,
      },
      settings,
      ...(extra.ueContexts === undefined ? {} : { ueContexts: extra.ueContexts }),
      ...(subscriptionData === undefined ? {} : { heldSubscribers: subscriptionData }),
    },
    authenticationData: authentication,
    subscriptionData: subscriptionData ?? ownSubscriptionData,
    operatorConfiguration: {
      getOperatorConfiguration: async () => structuredClone(holder.harness!.operator.configuration),
    },
    configurationEvents: {
      subscribe(listener) {
        events.add(listener);
        return () => void events.delete(listener);
      },
    },
    events: networkEvents,
    records: { recordSubscriberLog: (log) => subscriberLogs.push(log) > 0 },
    timers,
    logger: extra.logger ?? pino({ level: 'silent' }),
    ...(extra.userPlane === undefined ? {} : { sessions: { userPlane: extra.userPlane } }),
    ...(extra.upf === undefined
      ? {}
      : {
          sessions: {
            upf: extra.upf,
            records: { recordFlowReports: () => true, recordUsage: () => true, whenWritable: async () => {} },
            clock,
          },
        }),
    addressLeases: extra.addressLeases,
    // The SMSF tells time by the harness's manual clock, as its timers do.
    ...(extra.sms === undefined
      ? {}
      : { sms: { ...extra.sms, clock: { now: () => holder.harness!.clock.now() } } }),
  });
  const amf = functions.amf;
  const harness = await createHarness({
    clock,
    ue: amf.signalling,
    operator: configuration,
    networkEvents,
    ...(extra.logger === undefined ? {} : { logger: extra.logger }),
    ...(extra.furtherEndpoints === undefined ? {} : { furtherEndpoints: extra.furtherEndpoints }),
  });
  holder.harness = harness;
  harness.events.subscribe((change) => {
    for (const listener of events) listener(change);
  });
  return Object.assign(harness, {
    amf,
    smf: functions.smf,
    upf: functions.upf,
    locationServices: functions.locationServices,
    smsf: functions.smsf,
    smsc: functions.smsc,
    subscriberLogs,
    subscribers,
    subscriptions,
    authentication,
    async radio() {
      const radio = await harness.connect();
      radio.send(ngSetupRequest({ name: 'gnb-1' }));
      await harness.settled();
      // With further endpoints, the AMF offers them right after NG Setup (TS 38.413 8.7.3.2).
      const offered = (extra.furtherEndpoints ?? []).length > 0 ? ['AMFConfigurationUpdate'] : [];
      assert.deepEqual(radio.types(), ['NGSetupResponse', ...offered]);
      return radio;
    },
  });
}

/** User Location Information of an NR cell in TAC 000001 (TS 38.413 9.3.1.16). */
export function userLocation(cell = 0x10) {
  return {
    choice: 'userLocationInformationNR' as const,
    value: {
      nRCGI: { pLMNIdentity: plmnIdentity('001', '01'), nRCellIdentity: bits(cell, 36) },
      tAI: { pLMNIdentity: plmnIdentity('001', '01'), tAC: tac(1) },
    },
  };
}

export function initialUeMessage(ranUeNgapId: number, nasPdu: Uint8Array): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 15,
      name: 'InitialUEMessage',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ranUeNgapId },
          { id: 38, name: 'NAS-PDU', criticality: 'reject', value: nasPdu },
          { id: 121, name: 'UserLocationInformation', criticality: 'reject', value: userLocation() },
          { id: 90, name: 'RRCEstablishmentCause', criticality: 'ignore', value: 'mo-Signalling' },
          { id: 112, name: 'UEContextRequest', criticality: 'ignore', value: 'requested' },
        ],
      },
    },
  };
}

export function uplinkNasTransport(ids: { amf: number; ran: number }, nasPdu: Uint8Array): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 46,
      name: 'UplinkNASTransport',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ran },
          { id: 38, name: 'NAS-PDU', criticality: 'reject', value: nasPdu },
          { id: 121, name: 'UserLocationInformation', criticality: 'ignore', value: userLocation() },
        ],
      },
    },
  };
}

export function initialContextSetupResponse(ids: { amf: number; ran: number }): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 14,
      name: 'InitialContextSetup',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'ignore', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'ignore', value: ids.ran },
        ],
      },
    },
  };
}

export function ueContextReleaseRequest(ids: { amf: number; ran: number }): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 42,
      name: 'UEContextReleaseRequest',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ran },
          {
            id: 15,
            name: 'Cause',
            criticality: 'ignore',
            value: { choice: 'radioNetwork', value: 'user-inactivity' },
          },
        ],
      },
    },
  };
}

export function ueContextReleaseComplete(ids: { amf: number; ran: number }): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 41,
      name: 'UEContextRelease',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'ignore', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'ignore', value: ids.ran },
        ],
      },
    },
  };
}

/** The NAS-PDU an AMF message carries (Downlink NAS Transport or Initial Context Setup Request). */
export function nasPduOf(pdu: NGAPPDU): Uint8Array | undefined {
  if (pdu.choice !== 'initiatingMessage') return undefined;
  const message = pdu.value;
  if (message.name === 'DownlinkNASTransport') return ieValue(message.value.protocolIEs, 'NAS-PDU');
  if (message.name === 'InitialContextSetup') return ieValue(message.value.protocolIEs, 'NAS-PDU');
  return undefined;
}

export function amfUeNgapIdOf(pdu: NGAPPDU): number | undefined {
  if (pdu.choice === null) return undefined;
  const ies =
    (pdu.value.value as { protocolIEs?: { name: string | null; value: unknown }[] }).protocolIEs ?? [];
  const found = ies.find((ie) => ie.name === 'AMF-UE-NGAP-ID')?.value;
  return typeof found === 'number' ? found : undefined;
}

/**
 * A device for the AMF's tests: a USIM (K, OPc, MILENAGE, TS 33.501 key derivations) and the UE side of
 * the NAS security context, answering each NAS message the AMF sends the way TS 24.501 says.
 */
export class TestUe {
  security: NasSecurityContext | undefined;
  kamf: Buffer | undefined;
  guti: NasMessageOf<'registrationAccept'>['fiveGGuti'];
  /** Every NAS message received, decoded (after removing security). */
  readonly received: NasMessage[] = [];
  readonly options: { imsi: string; key: Buffer; opc: Buffer; ranUeNgapId: number };

  constructor(options: Partial<TestUe['options']> = {}) {
    this.options = { imsi: IMSI, key: KEY, opc: OPC, ranUeNgapId: 1, ...options };
  }

  registrationRequest(
    overrides: Partial<NasMessageOf<'registrationRequest'>> = {},
  ): NasMessageOf<'registrationRequest'> {
    const msin = this.options.imsi.slice(5);
    return {
      messageType: 'registrationRequest',
      registrationType: { followOnRequestPending: false, value: 1 },
      ngKsi: { mapped: false, ksi: 7 },
      mobileIdentity: {
        type: 'suci',
        supiFormat: 'imsi',
        mcc: '001',
        mnc: '01',
        routingIndicator: '0',
        protectionScheme: 0,
        homeNetworkPublicKeyId: 0,
        schemeOutput: { scheme: 'null', msin },
      },
      ueSecurityCapability: { ea: [0, 1, 2, 3], ia: [0, 1, 2, 3] },
      requestedNssai: [{ sst: 1, sd: 0x010203 }],
      ...overrides,
    };
  }

  /** Decodes a downlink NAS-PDU: plain, or protected under the UE's context (or the one `smc` creates). */
  open(bytes: Uint8Array): NasMessage {
    const decoded = decodeNasPdu(bytes);
    assert.ok(decoded.ok, 'the AMF sent a NAS-PDU that decodes');
    if (decoded.pdu.kind === 'plain') {
      this.received.push(decoded.pdu.message);
      return decoded.pdu.message;
    }
    if (decoded.pdu.securityHeaderType === SECURITY_HEADER_TYPE.integrityProtectedWithNewSecurityContext) {
      const inner = decoded.pdu.inner;
      assert.ok(inner?.ok, 'Security Mode Command decodes');
      const command = inner.message;
      assert.equal(command.messageType, 'securityModeCommand');
      assert.ok(this.kamf !== undefined, 'KAMF before Security Mode Command');
      this.security = createNasSecurityContext({
        side: 'ue',
        ngKsi: command.ngKsi,
        kamf: this.kamf,
        ciphering: command.selectedNasSecurityAlgorithms.ciphering as 0 | 1 | 2 | 3,
        integrity: command.selectedNasSecurityAlgorithms.integrity as 0 | 1 | 2 | 3,
      });
    }
    assert.ok(this.security !== undefined, 'a security context for a protected message');
    const opened = unprotect(this.security, bytes);
    assert.ok(opened.ok, `the UE verifies the AMF's MAC: ${opened.ok ? '' : opened.detail}`);
    this.received.push(opened.message);
    return opened.message;
  }

  /** Authentication Response for an Authentication Request (TS 33.501 6.1.3.2 on the UE side). */
  authenticationResponse(request: NasMessageOf<'authenticationRequest'>, wrongKey = false): FiveGmmMessage {
    const rand = Buffer.from(request.authenticationParameterRand ?? []);
    const autn = Buffer.from(request.authenticationParameterAutn ?? []);
    const key = wrongKey ? Buffer.alloc(16, 7) : this.options.key;
    const ak = milenage({ key, opc: this.options.opc, rand, sqn: Buffer.alloc(6), amf: AMF_5G }).ak;
    const sqnXorAk = autn.subarray(0, 6);
    const sqn = Buffer.from(sqnXorAk.map((b, i) => b ^ (ak[i] ?? 0)));
    const out = milenage({ key, opc: this.options.opc, rand, sqn, amf: AMF_5G });
    const snn = servingNetworkName('001', '01');
    const resStar = deriveResStar(out.ck, out.ik, snn, rand, out.res);
    const kausf = deriveKausf(out.ck, out.ik, snn, sqnXorAk);
    this.kamf = deriveKamf(deriveKseaf(kausf, snn), this.options.imsi, Buffer.from(request.abba));
    return { messageType: 'authenticationResponse', authenticationResponseParameter: resStar };
  }

  /** Authentication Failure #21 with AUTS for SQN_MS (TS 33.102 6.3.3). */
  synchFailure(request: NasMessageOf<'authenticationRequest'>, sqnMs: bigint): FiveGmmMessage {
    const rand = Buffer.from(request.authenticationParameterRand ?? []);
    const sqn = Buffer.from(sqnMs.toString(16).padStart(12, '0'), 'hex');
    const akStar = milenage({ key: this.options.key, opc: this.options.opc, rand, sqn, amf: AMF_5G }).akStar;
    const macS = f1(this.options.key, this.options.opc, rand, sqn, Buffer.alloc(2)).macS;
    const auts = Buffer.concat([Buffer.from(sqn.map((b, i) => b ^ (akStar[i] ?? 0))), macS]);
    return { messageType: 'authenticationFailure', fiveGmmCause: 21, authenticationFailureParameter: auts };
  }

  /** Security Mode Complete: IMEISV and the whole Registration Request, integrity protected and ciphered. */
  securityModeComplete(request: NasMessageOf<'registrationRequest'>): Uint8Array {
    const complete: FiveGmmMessage = {
      messageType: 'securityModeComplete',
      imeisv: { type: 'imeisv', digits: IMEISV },
      nasMessageContainer: encodeNasMessage(request),
    };
    const pdu = this.protect(
      complete,
      SECURITY_HEADER_TYPE.integrityProtectedAndCipheredWithNewSecurityContext,
    );
    assert.ok(this.security !== undefined);
    makeCurrent(this.security);
    return pdu;
  }

  protect(
    message: FiveGmmMessage,
    type: 1 | 2 | 3 | 4 = SECURITY_HEADER_TYPE.integrityProtectedAndCiphered,
  ): Uint8Array {
    assert.ok(this.security !== undefined, 'a security context to protect with');
    return protect(this.security, encodeNasMessage(message), type);
  }

  /** KgNB as the UE derives it from the uplink COUNT of its latest protected message (TS 33.501 A.9). */
  kgnb(): Buffer {
    assert.ok(this.security !== undefined && this.kamf !== undefined);
    return deriveKgnb(this.kamf, this.security.nextSendCount - 1, 1);
  }
}

export { createHarness };
