import { Type, type TSchema } from 'typebox';

const Scheme = Type.Union([Type.Literal('A'), Type.Literal('B')], {
  'x-error': 'must be "A" (X25519) or "B" (P-256)',
});
const KeyId = Type.Integer({ minimum: 0, maximum: 255, 'x-error': 'must be an integer 0..255' });

export const HomeNetworkKeyItem = Type.Object({
  id: Type.Integer({ minimum: 0, maximum: 255 }),
  scheme: Type.String(),
  public_key: Type.String({
    description: 'Lower-case hex: 32 bytes (A) or a compressed P-256 point, 33 bytes (B)',
  }),
});

export const HomeNetworkKeyCreated = Type.Object({
  message: Type.String(),
  id: Type.Integer(),
  scheme: Type.String(),
  public_key: Type.String(),
});

export const HomeNetworkKeyBody = Type.Object(
  {
    id: KeyId,
    scheme: Scheme,
    private_key: Type.Optional(
      Type.String({
        pattern: '^[0-9a-fA-F]{64}$',
        description: 'The 32-byte private key in hex; generated when omitted. Never returned.',
        'x-error': 'must be 64 hexadecimal characters (a 32-byte private key)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const HomeNetworkKeyParams = Type.Object({ scheme: Scheme, id: KeyId });

const preferences = <T extends TSchema>(algorithm: T, what: string) =>
  Type.Array(algorithm, {
    minItems: 1,
    maxItems: 4,
    uniqueItems: true,
    'x-error': `must be 1 to 4 different ${what} algorithms, most preferred first`,
  });

export const NasSecurity = Type.Object(
  {
    ciphering: preferences(
      Type.Union([Type.Literal('NEA0'), Type.Literal('NEA1'), Type.Literal('NEA2'), Type.Literal('NEA3')]),
      'ciphering (NEA0..NEA3)',
    ),
    integrity: preferences(
      Type.Union([Type.Literal('NIA0'), Type.Literal('NIA1'), Type.Literal('NIA2'), Type.Literal('NIA3')]),
      'integrity (NIA0..NIA3)',
    ),
  },
  { additionalProperties: false },
);
