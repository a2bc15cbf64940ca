import { Type } from 'typebox';

/**
 * Value schemas shared by the network resources (decisions sections 7-10, the spec's Errors section).
 * Each rule is written once here and used by every create and update body that carries the field.
 */

/** Slice, policy and profile names (decisions section 9). */
export const ResourceName = Type.String({
  pattern: '^[A-Za-z0-9._-]{1,64}$',
  'x-error': 'must be 1 to 64 characters: letters, digits, "-", "_" or "."',
  examples: ['default'],
});

/** A data network name, the DNN (decisions section 8). */
export const DataNetworkName = Type.String({
  pattern: '^[A-Za-z0-9.-]{1,63}$',
  'x-error': 'must be 1 to 63 characters: letters, digits, "-" or "."',
  examples: ['internet'],
});

/** `<number> <unit>` with unit Mbps or Gbps; the number is positive, with up to 3 decimals. */
export const Bitrate = Type.String({
  pattern: '^(?!0+(\\.0+)? )(0|[1-9][0-9]{0,5})(\\.[0-9]{1,3})? (Mbps|Gbps)$',
  'x-error': 'must be a bitrate "<number> <unit>" with a positive number and unit Mbps or Gbps',
  examples: ['1 Gbps', '200 Mbps'],
});

export const Var5qi = Type.Integer({ minimum: 1, maximum: 255, 'x-error': 'must be an integer 1..255' });

export const Arp = Type.Integer({ minimum: 1, maximum: 15, 'x-error': 'must be an integer 1..15' });

export const PriorityLevel = Type.Integer({
  minimum: 1,
  maximum: 255,
  'x-error': 'must be an integer 1..255',
});

export const Mtu = Type.Integer({ minimum: 0, maximum: 65535, 'x-error': 'must be an integer 0..65535' });

export const Sst = Type.Integer({ minimum: 0, maximum: 255, 'x-error': 'must be an integer 0..255' });

export const Sd = Type.String({
  pattern: '^[0-9A-Fa-f]{6}$',
  'x-error': 'must be 6 hexadecimal characters',
  examples: ['010203'],
});

export const CidrPool = Type.String({
  format: 'cidr',
  maxLength: 64,
  'x-error': 'must be an IP network in CIDR notation, such as 10.45.0.0/16 (no host bits set)',
  examples: ['10.45.0.0/16'],
});

/**
 * network.md 6 and 9: an IPv6 prefix of /64 or shorter, each session's /64 taken from it. Checked like
 * `ue-ip-pool` (the `cidr` format: a valid address and no host bits set, stored as sent), and by the
 * pattern IPv6 only, written in hexadecimal groups (no dotted IPv4 tail), with a length of 1 to 64.
 */
export const IPV6_POOL_PATTERN = '^[0-9A-Fa-f:]+/([1-9]|[1-5][0-9]|6[0-4])$';

export const Ipv6Pool = Type.String({
  format: 'cidr',
  pattern: IPV6_POOL_PATTERN,
  maxLength: 64,
  'x-error':
    'must be an IPv6 network in CIDR notation of /64 or shorter, such as 2001:db8:45::/48 (no host bits set)',
  examples: ['2001:db8:45::/48'],
});

export const IpAddress = Type.String({
  format: 'ip',
  maxLength: 64,
  'x-error': 'must be an IPv4 or IPv6 address',
  examples: ['8.8.8.8'],
});

export const Mcc = Type.String({ pattern: '^[0-9]{3}$', 'x-error': 'must be 3 digits', examples: ['001'] });

export const Mnc = Type.String({
  pattern: '^[0-9]{2,3}$',
  'x-error': 'must be 2 or 3 digits',
  examples: ['01'],
});

export const Tac = Type.String({
  pattern: '^[0-9A-Fa-f]{6}$',
  'x-error': 'must be 6 hexadecimal characters',
  examples: ['000001'],
});

/** 15 digits; that it starts with the operator's MCC and MNC is checked by the subscriber service. */
export const Imsi = Type.String({
  pattern: '^[0-9]{15}$',
  'x-error': 'must be 15 digits',
  examples: ['001010000000001'],
});

/** 128-bit values written as 32 hexadecimal characters: K, OPc, OP. */
export const Hex128 = Type.String({
  pattern: '^[0-9A-Fa-f]{32}$',
  'x-error': 'must be 32 hexadecimal characters',
  examples: ['465b5ce8b199b49faa5f0a2ee238a6bc'],
});

export const SequenceNumber = Type.String({
  pattern: '^[0-9A-Fa-f]{12}$',
  'x-error': 'must be 12 hexadecimal characters',
  examples: ['000000000001'],
});

/** `{name}` in a path: any text; an unknown name is a 404, not a 400. */
export const NameParams = Type.Object({ name: Type.String({ maxLength: 256 }) });

/** `{id}` in a path (cell positions, positioning sessions): any text; an unknown id is a 404, not a 400. */
export const IdParams = Type.Object({ id: Type.String({ maxLength: 256 }) });

/**
 * An MSISDN (TS 23.003 3.3, ITU-T E.164): country code first, which never starts with 0, and at most 15
 * digits in all. A leading "+" is accepted and not stored (docs/decisions.md 23).
 */
export const Msisdn = Type.String({
  pattern: '^\\+?[1-9][0-9]{0,14}$',
  'x-error': 'must be an E.164 number: 1 to 15 digits, the first not 0, optionally after a "+"',
  examples: ['15551234567', '+15551234567'],
});

/** An MSISDN as stored: its digits only (no "+"). */
export const StoredMsisdn = Type.String({ pattern: '^[1-9][0-9]{0,14}$' });
