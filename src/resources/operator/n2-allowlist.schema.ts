import { Type } from 'typebox';
import { MAX_N2_ALLOWED_PEERS } from '../../network/amf/n2/n2-peer-allowlist.ts';

/** The N2 allowlist set through the API (docs/n2.md); addresses and networks are checked by the service. */
export const N2Allowlist = Type.Object(
  {
    peers: Type.Array(
      Type.String({
        maxLength: 64,
        description: 'An IPv4 or IPv6 address (`192.0.2.7`) or network in CIDR notation (`10.1.0.0/16`)',
      }),
      {
        maxItems: MAX_N2_ALLOWED_PEERS,
        description: 'Peers that may open an N2 association; empty admits every peer',
        'x-error': `must be an array of at most ${MAX_N2_ALLOWED_PEERS} IP addresses or CIDR networks`,
      },
    ),
  },
  { additionalProperties: false },
);
