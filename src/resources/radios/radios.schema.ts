import { Type } from 'typebox';

const SupportedTai = Type.Object({
  tai: Type.Object({
    plmnID: Type.Object({ mcc: Type.String(), mnc: Type.String() }),
    tac: Type.String({ description: 'tracking area code, 6 hex characters' }),
  }),
  snssais: Type.Array(
    Type.Object({
      sst: Type.Integer(),
      sd: Type.Optional(Type.String({ description: '6 hex characters; absent when the slice has none' })),
    }),
  ),
});

const RadioFields = {
  name: Type.String({ description: 'the node’s own name, or its id when it sends none' }),
  id: Type.String({ description: '<mcc>:<mnc>:<gNB id in hex>' }),
  address: Type.String({ description: 'address of the node’s association, IP:port' }),
};

export const RadioListItem = Type.Object({
  ...RadioFields,
  supported_tais: Type.Array(SupportedTai, {
    deprecated: true,
    description: 'Deprecated: removed in a future release; read the single radio instead.',
  }),
});

export const RadioDetail = Type.Object({
  ...RadioFields,
  connected_at: Type.String({ description: 'RFC 3339 UTC' }),
  last_seen_at: Type.String({ description: 'RFC 3339 UTC' }),
  ran_node_type: Type.String({ description: 'gNB, ng-eNB, ...' }),
  supported_tais: Type.Array(SupportedTai),
  associations: Type.Array(
    Type.Object({
      address: Type.String({ description: 'IP:port of the node’s end' }),
      usage: Type.Union([Type.Literal('ue'), Type.Literal('non-ue'), Type.Literal('both')], {
        description: 'TNL Association Usage (TS 38.413 9.3.2.9): the signalling it carries',
      }),
    }),
    { description: 'the node’s TNL associations, the NG Setup one first (docs/n2.md)' },
  ),
  amf_name: Type.Union([Type.String(), Type.Null()], {
    description:
      'the AMF set member the radio is connected to; null when it is connected to this process, which runs no AMF set membership',
  }),
});

export const RadioParams = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 150 }),
});
