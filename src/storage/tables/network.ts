import type { Generated } from 'kysely';

/** Tables of the network configuration (migration 0002). Sealed columns hold AES-256-GCM secret-box values. */
interface OperatorTable {
  /** Always 1: there is one operator. */
  id: number;
  mcc: string;
  mnc: string;
  /** JSON array of 6-hex-character TACs, lower case. */
  supported_tacs: string;
  op_sealed: string;
  /** JSON array of NAS ciphering algorithms in order of preference (`NEA2`, ...); migration 0007. */
  nas_ciphering: Generated<string>;
  /** JSON array of NAS integrity algorithms in order of preference (`NIA2`, ...); migration 0007. */
  nas_integrity: Generated<string>;
  /** JSON array of the N2 allowlist set through the API (addresses, CIDR networks); migration 0013. */
  n2_allowed_peers: Generated<string>;
}

/** A home network public/private key pair for SUCI concealment (TS 33.501 Annex C); migration 0007. */
interface HomeNetworkKeysTable {
  /** The home network public key identifier, 0..255. */
  id: number;
  /** Protection scheme: `A` (X25519) or `B` (P-256). */
  scheme: string;
  /** Lower-case hex of the public key. */
  public_key: string;
  private_key_sealed: string;
  created_at: number;
}

interface DataNetworksTable {
  id: Generated<number>;
  name: string;
}

interface SlicesTable {
  id: Generated<number>;
  name: string;
  sst: number;
  sd: string | null;
}

interface ProfilesTable {
  id: Generated<number>;
  name: string;
  ue_ip_pool: string;
  /** IPv6 prefix (CIDR, /64 or shorter) each session takes a /64 from; NULL: IPv4 only (migration 0010). */
  ue_ipv6_pool: string | null;
  dns: string;
  mtu: number;
  bitrate_uplink: string;
  bitrate_downlink: string;
  var5qi: number;
  priority_level: number;
  /** 1: the profile's subscribers may use SMS over NAS (the default), 0: not (migration 0016). */
  sms_allowed: Generated<number>;
}

interface PoliciesTable {
  id: Generated<number>;
  name: string;
  bitrate_uplink: string;
  bitrate_downlink: string;
  var5qi: number;
  arp: number;
  data_network_id: number;
  profile_id: number | null;
  slice_id: number | null;
}

interface SubscribersTable {
  id: Generated<number>;
  imsi: string;
  profile_id: number;
  key_sealed: string;
  opc_sealed: string;
  sequence_number: string;
  created_at: number;
  /** E.164 digits without "+", unique; NULL: none (migration 0014). */
  msisdn: string | null;
}

/** The number of subscribers of each profile that has had any, kept by triggers (migration 0009). */
interface SubscriberCountByProfileTable {
  profile_id: number;
  total: number;
}

/** One row (id 1): the number of subscribers, kept by triggers (migration 0008). */
interface SubscriberCountTable {
  id: number;
  total: number;
}

export interface NetworkTables {
  operator: OperatorTable;
  data_networks: DataNetworksTable;
  slices: SlicesTable;
  profiles: ProfilesTable;
  policies: PoliciesTable;
  subscribers: SubscribersTable;
  subscriber_count: SubscriberCountTable;
  subscriber_count_by_profile: SubscriberCountByProfileTable;
  home_network_keys: HomeNetworkKeysTable;
}
