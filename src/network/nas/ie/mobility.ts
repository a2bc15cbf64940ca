// 5GMM value codecs with bit fields: NAS key set identifier (TS 24.501 9.11.3.32), 5GS registration
// type (9.11.3.7), de-registration type (9.11.3.20), 5GS registration result (9.11.3.6), NAS security
// algorithms (9.11.3.34), UE security capability (9.11.3.54), PDU session status (9.11.3.44) and the
// GPRS timers (9.11.2.3-9.11.2.5, coded as TS 24.008 10.5.7.3, 10.5.7.4, 10.5.7.4a).
import { copyOf, checkRange, halfOctet, invalid, octets } from '../ie-codec.ts';

export interface NasKeySetIdentifier {
  /** Type of security context: native (false) or mapped (true). */
  mapped: boolean;
  /** 0..6; 7 is "no key is available". */
  ksi: number;
}

export const NO_KEY_AVAILABLE = 7;

export const nasKeySetIdentifier = halfOctet<NasKeySetIdentifier>(
  (n) => ({ mapped: (n & 0x8) !== 0, ksi: n & 0x7 }),
  (v) => (v.mapped ? 0x8 : 0) | checkRange(v.ksi, 0, 7),
);

/** 5GS registration type values (bits 3-1). */
export const REGISTRATION_TYPE = {
  initial: 1,
  mobilityUpdating: 2,
  periodicUpdating: 3,
  emergency: 4,
  snpnOnboarding: 5,
  disasterRoamingMobility: 6,
  disasterRoamingInitial: 7,
} as const;

export interface RegistrationType {
  /** Follow-on request pending (FOR, bit 4). */
  followOnRequestPending: boolean;
  value: number;
}

export const registrationType = halfOctet<RegistrationType>(
  (n) => ({ followOnRequestPending: (n & 0x8) !== 0, value: n & 0x7 }),
  (v) => (v.followOnRequestPending ? 0x8 : 0) | checkRange(v.value, 0, 7),
);

/** Access type (9.11.2.1A, also bits 2-1 of the de-registration type). */
export const ACCESS_TYPE = { threeGpp: 1, nonThreeGpp: 2, both: 3 } as const;

export interface DeregistrationType {
  switchOff: boolean;
  reRegistrationRequired: boolean;
  accessType: number;
}

export const deregistrationType = halfOctet<DeregistrationType>(
  (n) => ({ switchOff: (n & 0x8) !== 0, reRegistrationRequired: (n & 0x4) !== 0, accessType: n & 0x3 }),
  (v) => (v.switchOff ? 0x8 : 0) | (v.reRegistrationRequired ? 0x4 : 0) | checkRange(v.accessType, 0, 3),
);

export interface RegistrationResult {
  /** 1 3GPP access, 2 non-3GPP access, 3 both. */
  value: number;
  smsAllowed: boolean;
  nssaaToBePerformed: boolean;
  emergencyRegistered: boolean;
  disasterRoamingRegistration: boolean;
}

export const registrationResult = octets<RegistrationResult>(
  (value) => {
    if (value.length !== 1) invalid('5GS registration result is 1 octet');
    const o = value[0] ?? 0;
    return {
      value: o & 0x7,
      smsAllowed: (o & 0x08) !== 0,
      nssaaToBePerformed: (o & 0x10) !== 0,
      emergencyRegistered: (o & 0x20) !== 0,
      disasterRoamingRegistration: (o & 0x40) !== 0,
    };
  },
  (v) =>
    Uint8Array.of(
      checkRange(v.value, 0, 7) |
        (v.smsAllowed ? 0x08 : 0) |
        (v.nssaaToBePerformed ? 0x10 : 0) |
        (v.emergencyRegistered ? 0x20 : 0) |
        (v.disasterRoamingRegistration ? 0x40 : 0),
    ),
);

export interface NasSecurityAlgorithms {
  /** 0..3: 5G-EA0, 128-5G-EA1 (SNOW 3G), 128-5G-EA2 (AES), 128-5G-EA3 (ZUC). */
  ciphering: number;
  /** 0..3: 5G-IA0, 128-5G-IA1, 128-5G-IA2, 128-5G-IA3. */
  integrity: number;
}

/** Selected NAS security algorithms (also the EPS ones of 9.11.3.25): ciphering in bits 7-5, integrity in bits 3-1. */
export const nasSecurityAlgorithms = octets<NasSecurityAlgorithms>(
  (value) => {
    if (value.length !== 1) invalid('NAS security algorithms is 1 octet');
    const o = value[0] ?? 0;
    return { ciphering: o >> 4, integrity: o & 0xf };
  },
  (v) => Uint8Array.of((checkRange(v.ciphering, 0, 15) << 4) | checkRange(v.integrity, 0, 15)),
);

export interface UeSecurityCapability {
  /** Supported 5G-EA algorithm numbers (0 = 5G-EA0, 1 = 128-5G-EA1, ... up to 7). */
  ea: number[];
  ia: number[];
  /** The EPS algorithms, when the UE supports S1 mode. */
  eea?: number[];
  eia?: number[];
  /** Octets after the EPS ones (spare in Release 17), kept as received. */
  spare?: Uint8Array;
}

// Each octet lists algorithms 0..7 from bit 8 down to bit 1.
function algorithmsOf(octet: number): number[] {
  const list: number[] = [];
  for (let algorithm = 0; algorithm < 8; algorithm++) if (octet & (0x80 >> algorithm)) list.push(algorithm);
  return list;
}

function octetOf(algorithms: readonly number[]): number {
  return algorithms.reduce((octet, algorithm) => octet | (0x80 >> checkRange(algorithm, 0, 7)), 0);
}

export const ueSecurityCapability = octets<UeSecurityCapability>(
  (value) => {
    if (value.length < 2) invalid('UE security capability needs 2 octets');
    const capability: UeSecurityCapability = {
      ea: algorithmsOf(value[0] ?? 0),
      ia: algorithmsOf(value[1] ?? 0),
    };
    if (value.length > 2) capability.eea = algorithmsOf(value[2] ?? 0);
    if (value.length > 3) capability.eia = algorithmsOf(value[3] ?? 0);
    if (value.length > 4) capability.spare = copyOf(value, 4);
    return capability;
  },
  (v) => {
    const out = [octetOf(v.ea), octetOf(v.ia)];
    if (v.eea !== undefined) out.push(octetOf(v.eea));
    if (v.eia !== undefined) out.push(octetOf(v.eia));
    return Uint8Array.from([...out, ...(v.spare ?? [])]);
  },
);

/**
 * PDU session identities whose bit is set (PSI(0)..PSI(15): octet 3 bit 1 is PSI(0), octet 4 bit 8 is
 * PSI(15)). Octets after the fourth are spare and not kept.
 */
export const pduSessionStatus = octets<number[]>(
  (value) => {
    if (value.length < 2) invalid('PDU session status needs 2 octets');
    const word = (value[0] ?? 0) | ((value[1] ?? 0) << 8);
    return Array.from({ length: 16 }, (_, psi) => psi).filter((psi) => word & (1 << psi));
  },
  (list) => {
    const word = list.reduce((w, psi) => w | (1 << checkRange(psi, 0, 15)), 0);
    return Uint8Array.of(word & 0xff, word >> 8);
  },
);

export interface GprsTimer {
  /** Bits 8-6: the unit, whose meaning depends on the timer's kind (see timerSeconds). */
  unit: number;
  /** Bits 5-1: the value in that unit. */
  value: number;
}

export const gprsTimer = octets<GprsTimer>(
  (value) => {
    if (value.length !== 1) invalid('GPRS timer is 1 octet');
    const o = value[0] ?? 0;
    return { unit: o >> 5, value: o & 0x1f };
  },
  (v) => Uint8Array.of((checkRange(v.unit, 0, 7) << 5) | checkRange(v.value, 0, 31)),
);

// Seconds per unit: TS 24.008 10.5.7.3 (GPRS timer and GPRS timer 2) and 10.5.7.4a (GPRS timer 3).
// Unit 7 deactivates the timer; other unlisted units read as the first one (minutes), as specified.
const UNIT_SECONDS: Record<'timer' | 'timer3', readonly number[]> = {
  timer: [2, 60, 360, 60, 60, 60, 60],
  timer3: [600, 3600, 36000, 2, 30, 60, 1152000],
};

/** The timer's duration in seconds, or undefined when deactivated. */
export function timerSeconds(timer: GprsTimer, kind: 'timer' | 'timer2' | 'timer3'): number | undefined {
  if (timer.unit === 7) return undefined;
  const table = kind === 'timer3' ? UNIT_SECONDS.timer3 : UNIT_SECONDS.timer;
  return timer.value * (table[timer.unit] ?? 60);
}
