import type { FieldSpec } from '../../components/form-values.ts';

const BITRATE = 'A number and Mbps or Gbps, e.g. 100 Mbps';

/**
 * The profile form. `ue-ipv6-pool` is optional: left blank, the body goes without it, so a create makes
 * an IPv4-only profile and an edit removes the pool (PUT replaces the profile).
 */
export const PROFILE_FIELDS: FieldSpec[] = [
  { name: 'name', label: 'Name', kind: 'text', required: true, createOnly: true },
  {
    name: 'ue-ip-pool',
    label: 'UE IP pool',
    kind: 'text',
    required: true,
    description: 'CIDR, e.g. 10.45.0.0/16',
  },
  {
    name: 'ue-ipv6-pool',
    label: 'UE IPv6 pool',
    kind: 'text',
    description: 'IPv6 CIDR of /64 or shorter, e.g. 2001:db8:45::/48: a /64 per session; empty: IPv4 only',
  },
  { name: 'dns', label: 'DNS server', kind: 'text', required: true, description: 'An IP address' },
  { name: 'mtu', label: 'MTU', kind: 'integer', required: true, description: '0 to 65535' },
  { name: 'bitrate-uplink', label: 'Uplink bitrate', kind: 'text', required: true, description: BITRATE },
  { name: 'bitrate-downlink', label: 'Downlink bitrate', kind: 'text', required: true, description: BITRATE },
  { name: 'var5qi', label: '5QI', kind: 'integer', required: true, description: '1 to 255' },
  {
    name: 'sms-allowed',
    label: 'SMS over NAS allowed',
    kind: 'boolean',
    initial: 'true',
    description: 'Subscribers of this profile may send and receive short messages',
  },
  {
    name: 'priority-level',
    label: 'Priority level',
    kind: 'integer',
    required: true,
    description: '1 to 255',
  },
];
