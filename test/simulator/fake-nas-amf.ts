import { servingNetworkName } from '../../src/crypto/key-hierarchy.ts';
import { generateHomeNetworkKey, PROTECTION_SCHEME } from '../../src/crypto/suci.ts';
import type { Ausf, PendingAuthentication } from '../../src/network/ausf/index.ts';
import { createAusf, createHomeNetworkKeyRing, resolveSupi } from '../../src/network/ausf/index.ts';
import type {
  Guti,
  MobileIdentity,
  NasMessage,
  NasMessageOf,
  UeSecurityCapability,
} from '../../src/network/nas/index.ts';
import {
  decodeNasPdu,
  encodeNasMessage,
  IDENTITY_TYPE,
  SECURITY_HEADER_TYPE,
} from '../../src/network/nas/index.ts';
import type { NasSecurityContext } from '../../src/network/nas-security/index.ts';
import {
  createNasSecurityContext,
  deriveContextKgnb,
  makeCurrent,
  protect,
  unprotect,
} from '../../src/network/nas-security/index.ts';
import type { HomeNetworkKey } from '../../src/network/ports/operator-configuration.ts';
import { kamfFromKseaf } from '../../src/network/security/kamf.ts';
import type { FakeAuthenticationData } from '../network/ausf/fake-authentication-data.ts';
import { fakeAuthenticationData } from '../network/ausf/fake-authentication-data.ts';

/**
 * A stand-in for the AMF's 5GMM side in the simulator's own tests: the network half of registration,
 * service request and deregistration for one UE, on the real AUSF (with a fake authentication-data port),
 * the real SIDF and the real NAS security context (side 'network'). Not the AMF (`src/network/amf/`):
 * the end-to-end tests drive that one. It answers each uplink NAS PDU with what the network sends next.
 */

export type NetworkAction =
  | { kind: 'nas'; pdu: Uint8Array }
  /** Initial Context Setup: KgNB for the gNB and the NAS PDU inside. */
  | { kind: 'context-setup'; kgnb: Buffer; pdu: Uint8Array }
  /** The AMF releases the UE's NG connection (UE Context Release Command). */
  | { kind: 'release' };

export const PLMN = { mcc: '001', mnc: '01' };
export const SNN = servingNetworkName(PLMN.mcc, PLMN.mnc);
/** T3512 of 60 minutes: GPRS timer 3 (TS 24.008 10.5.7.4a), unit 10 minutes, value 6. */
export const T3512 = { unit: 0, value: 6 } as const;

function homeNetworkKey(scheme: 'A' | 'B'): HomeNetworkKey {
  const generated = generateHomeNetworkKey(
    scheme === 'A' ? PROTECTION_SCHEME.profileA : PROTECTION_SCHEME.profileB,
  );
  return { id: 1, scheme, publicKey: generated.key.publicKey, privateKey: generated.privateKey };
}

export class FakeNasAmf {
  readonly ausf: Ausf;
  readonly authenticationData: FakeAuthenticationData;
  /** Home network keys with identifier 1 of Profile A and B. */
  readonly homeNetworkKeys = { a: homeNetworkKey('A'), b: homeNetworkKey('B') };
  /** Every plain NAS message received, by type. */
  readonly received: NasMessage[] = [];
  supi: string | undefined;
  /**
   * The Registration Reject cause for an identity of no subscriber: #7 as the AMF sends it
   * (docs/registration.md, Reject causes); a test sets #9 to play a core that made UEs retry.
   */
  unknownIdentityCause = 7;
  /** Replayed in the Security Mode Command instead of the UE's own (a bidding-down attempt). */
  replayedCapabilities: UeSecurityCapability | undefined;
  imeisv: string | undefined;
  registered = false;
  guti: Guti | undefined;
  security: NasSecurityContext | undefined;
  /** Discarded uplink PDUs and why (MAC, replay, decode). */
  readonly discarded: string[] = [];
  #pending: PendingAuthentication | undefined;
  #request: NasMessageOf<'registrationRequest'> | undefined;
  #nextTmsi: number;

  constructor(subscribers: Record<string, { k: Buffer; opc: Buffer; sqn: Buffer }>, firstTmsi = 0x1000) {
    this.#nextTmsi = firstTmsi;
    this.authenticationData = fakeAuthenticationData(subscribers);
    this.ausf = createAusf({ authenticationData: this.authenticationData });
  }

  /** The network's answer to one uplink NAS PDU. */
  async uplink(pdu: Uint8Array): Promise<NetworkAction[]> {
    const message = this.#open(pdu);
    if (message === undefined) return [];
    this.received.push(message);
    switch (message.messageType) {
      case 'registrationRequest':
        return this.#registrationRequest(message);
      case 'identityResponse':
        return this.#identified(message.mobileIdentity);
      case 'authenticationResponse': {
        const pending = this.#pending;
        this.#pending = undefined;
        const confirmed =
          pending === undefined
            ? undefined
            : this.ausf.confirm(pending, message.authenticationResponseParameter ?? new Uint8Array(0));
        if (confirmed?.ok !== true) return [this.#plain({ messageType: 'authenticationReject' })];
        const context = createNasSecurityContext({
          side: 'network',
          ngKsi: { mapped: false, ksi: 1 },
          kamf: kamfFromKseaf(confirmed.kseaf, confirmed.supi),
          ciphering: 2,
          integrity: 2,
        });
        this.security = context;
        const command: NasMessageOf<'securityModeCommand'> = {
          messageType: 'securityModeCommand',
          selectedNasSecurityAlgorithms: { ciphering: 2, integrity: 2 },
          ngKsi: context.ngKsi,
          replayedUeSecurityCapabilities: this.replayedCapabilities ??
            this.#request?.ueSecurityCapability ?? { ea: [], ia: [] },
          imeisvRequest: 1,
        };
        return [
          {
            kind: 'nas',
            pdu: protect(
              context,
              encodeNasMessage(command),
              SECURITY_HEADER_TYPE.integrityProtectedWithNewSecurityContext,
            ),
          },
        ];
      }
      case 'authenticationFailure': {
        const pending = this.#pending;
        this.#pending = undefined;
        const auts = message.authenticationFailureParameter;
        if (message.fiveGmmCause === 21 && pending !== undefined && auts !== undefined) {
          if (await this.ausf.resynchronise(pending, auts)) return this.#challenge();
        }
        return [this.#plain({ messageType: 'authenticationReject' })];
      }
      case 'securityModeComplete': {
        if (this.security === undefined) return [];
        makeCurrent(this.security);
        if (message.imeisv?.type === 'imeisv') this.imeisv = message.imeisv.digits;
        return this.#accept(true);
      }
      case 'registrationComplete':
        this.registered = true;
        return [];
      case 'serviceRequest':
        return this.#contextSetup({ messageType: 'serviceAccept' });
      case 'deregistrationRequestUeOriginating':
        this.registered = false;
        if (message.deregistrationType.switchOff) return [{ kind: 'release' }];
        return [this.#protected({ messageType: 'deregistrationAcceptUeOriginating' }), { kind: 'release' }];
      default:
        return [];
    }
  }

  /** Network-initiated deregistration (TS 24.501 5.5.2.3). */
  deregistrationRequest(): NetworkAction[] {
    this.registered = false;
    return [
      this.#protected({
        messageType: 'deregistrationRequestUeTerminated',
        deregistrationType: { switchOff: false, reRegistrationRequired: false, accessType: 1 },
        fiveGmmCause: 3,
      }),
    ];
  }

  /** A Configuration Update Command with a new 5G-GUTI (TS 24.501 5.4.4). */
  configurationUpdate(): NetworkAction[] {
    this.guti = this.#newGuti();
    return [
      this.#protected({
        messageType: 'configurationUpdateCommand',
        configurationUpdateIndication: 1,
        fiveGGuti: this.guti,
      }),
    ];
  }

  // ----- internals -----

  #open(pdu: Uint8Array): NasMessage | undefined {
    const decoded = decodeNasPdu(pdu);
    if (!decoded.ok) {
      this.discarded.push(`decode: ${decoded.error.kind}`);
      return undefined;
    }
    if (decoded.pdu.kind === 'plain') return decoded.pdu.message;
    if (this.security === undefined) {
      this.discarded.push('no context');
      return undefined;
    }
    const opened = unprotect(this.security, pdu);
    if (!opened.ok) {
      this.discarded.push(opened.reason);
      return undefined;
    }
    return opened.message;
  }

  async #registrationRequest(request: NasMessageOf<'registrationRequest'>): Promise<NetworkAction[]> {
    this.#request = request;
    if (request.registrationType.value !== 1 && this.registered) return this.#accept(false);
    return this.#identified(request.mobileIdentity);
  }

  async #identified(identity: MobileIdentity): Promise<NetworkAction[]> {
    if (identity.type === '5g-guti') {
      if (this.guti === undefined || identity.tmsi !== this.guti.tmsi)
        return [this.#plain({ messageType: 'identityRequest', identityType: IDENTITY_TYPE.suci })];
    } else if (identity.type === 'suci') {
      const ring = createHomeNetworkKeyRing([this.homeNetworkKeys.a, this.homeNetworkKeys.b]);
      const resolved = resolveSupi(identity, ring);
      if (!resolved.ok)
        return [this.#plain({ messageType: 'registrationReject', fiveGmmCause: this.unknownIdentityCause })];
      this.supi = resolved.supi;
    } else
      return [this.#plain({ messageType: 'registrationReject', fiveGmmCause: this.unknownIdentityCause })];
    return this.#challenge();
  }

  async #challenge(): Promise<NetworkAction[]> {
    const challenge = this.supi === undefined ? undefined : await this.ausf.authenticate(this.supi, SNN);
    if (challenge === undefined)
      return [this.#plain({ messageType: 'registrationReject', fiveGmmCause: this.unknownIdentityCause })];
    this.#pending = challenge.pending;
    return [
      this.#plain({
        messageType: 'authenticationRequest',
        ngKsi: { mapped: false, ksi: 1 },
        abba: challenge.abba,
        authenticationParameterRand: challenge.rand,
        authenticationParameterAutn: challenge.autn,
      }),
    ];
  }

  #accept(initial: boolean): NetworkAction[] {
    this.guti = this.#newGuti();
    const accept: NasMessageOf<'registrationAccept'> = {
      messageType: 'registrationAccept',
      registrationResult: {
        value: 1,
        smsAllowed: false,
        nssaaToBePerformed: false,
        emergencyRegistered: false,
        disasterRoamingRegistration: false,
      },
      fiveGGuti: this.guti,
      allowedNssai: [{ sst: 1 }],
      taiList: [{ type: 'non-consecutive-tacs', plmn: PLMN, tacs: [1] }],
      t3512Value: T3512,
    };
    return initial ? this.#contextSetup(accept) : [this.#protected(accept)];
  }

  #contextSetup(message: NasMessage): NetworkAction[] {
    const context = this.security;
    const kgnb = context === undefined ? undefined : deriveContextKgnb(context);
    const nas = this.#protected(message);
    if (kgnb === undefined || nas.kind !== 'nas') return [nas];
    return [{ kind: 'context-setup', kgnb, pdu: nas.pdu }];
  }

  #newGuti(): Guti {
    return {
      type: '5g-guti',
      ...PLMN,
      amfRegionId: 0xca,
      amfSetId: 0x3f5,
      amfPointer: 1,
      tmsi: this.#nextTmsi++,
    };
  }

  #plain(message: NasMessage): NetworkAction {
    return { kind: 'nas', pdu: encodeNasMessage(message) };
  }

  #protected(message: NasMessage): NetworkAction {
    const context = this.security;
    if (context === undefined) return this.#plain(message);
    return {
      kind: 'nas',
      pdu: protect(context, encodeNasMessage(message), SECURITY_HEADER_TYPE.integrityProtectedAndCiphered),
    };
  }
}
