// What a simulated UE is: its subscription (IMSI, K, OPc, SQN), how it conceals its SUPI (TS 33.501 Annex
// C: null scheme, Profile A, Profile B under a home network public key), its equipment identity, its
// security capabilities and slices, and the misbehaviour a test asks of it.
import { PROTECTION_SCHEME, concealMsin } from '../../crypto/suci.ts';
import type { Suci } from '../../network/nas/ie/mobile-identity.ts';
import type { SNssai } from '../../network/nas/ie/nssai.ts';
import type { UeSecurityCapability } from '../../network/nas/ie/mobility.ts';
import type { Plmn } from '../../network/nas/ie/digits.ts';
import type { UePositioning } from './ue-positioning.ts';
import { validateUePositioning } from './ue-positioning.ts';

export type SuciProtection =
  | { scheme: 'null' }
  /** Profile A (X25519, 32-byte key) or B (P-256, 33-byte compressed key), TS 33.501 C.3.4. */
  | { scheme: 'A' | 'B'; homeNetworkPublicKey: Uint8Array; homeNetworkPublicKeyId: number };

/** Things a UE does wrong on demand, for tests of the network's defences. */
interface UeMisbehaviour {
  /** Stop answering after receiving this NAS message (e.g. `securityModeCommand`): a UE that vanishes mid-procedure. */
  silentAfter?: string;
  /** The gNB answers Initial Context Setup Request with a Failure (TS 38.413 8.3.1.3). */
  failInitialContextSetup?: boolean;
}

export interface UeConfig {
  /** 15 digits: MCC, MNC (of `plmn`), MSIN. */
  imsi: string;
  /** The home PLMN: the IMSI's MCC and MNC. */
  plmn: Plmn;
  key: Buffer;
  opc: Buffer;
  /** SQN_MS the card starts with (48 bits), zero by default. */
  sqn?: Buffer;
  suci: SuciProtection;
  /** TS 23.003 2.2B: 1 to 4 digits, "0" when the home network has none. */
  routingIndicator?: string;
  /** 16 digits: TAC (8), serial number (6), software version (2). */
  imeisv: string;
  /** 5G-EA and 5G-IA algorithms the UE supports (TS 24.501 9.11.3.54). */
  securityCapability: UeSecurityCapability;
  requestedNssai: readonly SNssai[];
  misbehaviour?: UeMisbehaviour;
  /** What it answers over LPP and what its gNB measures of it; absent: a device without positioning. */
  positioning?: UePositioning;
  /** It asks for SMS over NAS when it registers (the 5GS update type, TS 24.501 9.11.3.9A); ue-sms.ts. */
  sms?: boolean;
  /**
   * It supports IMS voice, voice centric: its Registration Request carries UE's usage setting (TS 24.501
   * 8.2.6.22, 9.11.3.55), and the AMF may check its radio capability for IMS voice (docs/n2.md).
   */
  imsVoice?: boolean;
}

/** The UE security capability of a device supporting NEA0-3 and NIA0-3 (NIA0 only for emergency). */
export const ALL_ALGORITHMS: UeSecurityCapability = { ea: [0, 1, 2, 3], ia: [0, 1, 2, 3] };

export function validateUeConfig(config: UeConfig): void {
  const { imsi, plmn, imeisv } = config;
  if (!/^\d{15}$/.test(imsi)) throw new RangeError(`IMSI must be 15 digits, got "${imsi}"`);
  if (!imsi.startsWith(plmn.mcc + plmn.mnc))
    throw new RangeError(`IMSI ${imsi} is not of PLMN ${plmn.mcc}-${plmn.mnc}`);
  if (!/^\d{16}$/.test(imeisv)) throw new RangeError(`IMEISV must be 16 digits, got "${imeisv}"`);
  if (config.key.length !== 16 || config.opc.length !== 16) throw new RangeError('K and OPc are 16 bytes');
  if (config.suci.scheme !== 'null') {
    const expected = config.suci.scheme === 'A' ? 32 : 33;
    if (config.suci.homeNetworkPublicKey.length !== expected)
      throw new RangeError(`a Profile ${config.suci.scheme} home network key is ${expected} bytes`);
    const id = config.suci.homeNetworkPublicKeyId;
    if (!Number.isInteger(id) || id < 0 || id > 255) throw new RangeError('home network key id is 0..255');
  }
  if (config.positioning !== undefined) validateUePositioning(config.positioning);
}

/** The MSIN: the IMSI after MCC and MNC (TS 23.003 2.2). */
function msinOf(config: UeConfig): string {
  return config.imsi.slice(config.plmn.mcc.length + config.plmn.mnc.length);
}

/**
 * A fresh SUCI (TS 23.003 2.2B, TS 33.501 6.12.2): Profiles A and B take a new ephemeral key each time,
 * so two SUCIs of one SUPI differ.
 */
export function concealSupi(config: UeConfig): Suci {
  const { suci } = config;
  const base = {
    type: 'suci',
    supiFormat: 'imsi',
    mcc: config.plmn.mcc,
    mnc: config.plmn.mnc,
    routingIndicator: config.routingIndicator ?? '0',
  } as const;
  if (suci.scheme === 'null') {
    return {
      ...base,
      protectionScheme: PROTECTION_SCHEME.null,
      homeNetworkPublicKeyId: 0,
      schemeOutput: { scheme: 'null', msin: msinOf(config) },
    };
  }
  const profile = suci.scheme === 'A' ? PROTECTION_SCHEME.profileA : PROTECTION_SCHEME.profileB;
  const keyLength = suci.scheme === 'A' ? 32 : 33;
  const output = concealMsin(profile, msinOf(config), suci.homeNetworkPublicKey);
  return {
    ...base,
    protectionScheme: profile,
    homeNetworkPublicKeyId: suci.homeNetworkPublicKeyId,
    schemeOutput: {
      scheme: suci.scheme === 'A' ? 'profile-a' : 'profile-b',
      eccEphemeralPublicKey: output.subarray(0, keyLength),
      ciphertext: output.subarray(keyLength, output.length - 8),
      macTag: output.subarray(output.length - 8),
    },
  };
}

/** TS 23.003 6.2.2: the IMEI of an IMEISV is its first 14 digits and a Luhn check digit (6.2.1). */
export function imeiOf(imeisv: string): string {
  const body = imeisv.slice(0, 14);
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const digit = Number(body[i]);
    // Luhn from the right of the 14 digits: every second one (from the rightmost) doubled.
    const doubled = i % 2 === 1 ? digit * 2 : digit;
    sum += Math.floor(doubled / 10) + (doubled % 10);
  }
  return body + String((10 - (sum % 10)) % 10);
}
