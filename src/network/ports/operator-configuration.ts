import type { Snssai } from './subscription-data.ts';

export type CipheringAlgorithm = 'NEA0' | 'NEA1' | 'NEA2' | 'NEA3';
export type IntegrityAlgorithm = 'NIA0' | 'NIA1' | 'NIA2' | 'NIA3';

/** A home network key pair that de-conceals SUCIs (TS 33.501 Annex C). */
export interface HomeNetworkKey {
  /** Home network public key identifier, 0..255. */
  id: number;
  /** `A`: ECIES over X25519; `B`: ECIES over P-256. */
  scheme: 'A' | 'B';
  publicKey: Buffer;
  privateKey: Buffer;
}

/** What the AMF needs of the operator's configuration (network.md sections 2, 5 and 9). */
export interface OperatorConfiguration {
  plmn: { mcc: string; mnc: string };
  /** Tracking area codes served, 6 lower-case hex digits each. */
  tacs: string[];
  /** The Operator Code, 16 bytes. */
  op: Buffer;
  /** Every configured slice. */
  slices: Snssai[];
  /** Ordered preferences, most preferred first (TS 33.501 5.5 leaves the order to the operator). */
  nasSecurity: { ciphering: CipheringAlgorithm[]; integrity: IntegrityAlgorithm[] };
  homeNetworkKeys: HomeNetworkKey[];
  /** The N2 allowlist set through the API: addresses and CIDR networks; empty admits every peer (docs/n2.md). */
  n2AllowedPeers: string[];
}

export interface OperatorConfigurationPort {
  /** The whole configuration in one consistent read. */
  getOperatorConfiguration(): Promise<OperatorConfiguration>;
}
