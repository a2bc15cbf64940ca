import { Type } from 'typebox';

const AmfSetMemberItem = Type.Object({
  name: Type.String({ description: 'the member’s AMF Name (amf_name)' }),
  guami: Type.Object(
    {
      mcc: Type.String(),
      mnc: Type.String(),
      amf_region_id: Type.Integer({ minimum: 0, maximum: 255 }),
      amf_set_id: Type.Integer({ minimum: 0, maximum: 1023 }),
      amf_pointer: Type.Integer({ minimum: 0, maximum: 63 }),
    },
    { description: 'TS 23.003 2.10.1' },
  ),
  state: Type.Union([Type.Literal('serving'), Type.Literal('draining'), Type.Literal('gone')], {
    description: 'gone: it stopped, or its lease expired without a heartbeat',
  }),
  relative_capacity: Type.Integer({ minimum: 0, maximum: 255, description: 'RelativeAMFCapacity' }),
  n2_addresses: Type.Array(Type.String(), { description: 'where radios reach its N2' }),
  last_heartbeat_at: Type.String({ description: 'RFC 3339 UTC, on the member’s clock' }),
  lease_expires_at: Type.String({ description: 'RFC 3339 UTC, on the member’s clock' }),
});

export const AmfSetView = Type.Object({
  answered_by: Type.Union([Type.String(), Type.Null()], {
    description: 'the AMF Name of the member whose API answered; null when it runs no N2',
  }),
  members: Type.Array(AmfSetMemberItem),
});

export const AmfSetDrainStarted = Type.Object({
  name: Type.String({ description: 'the AMF Name of the member that is draining (the one that answered)' }),
  state: Type.Literal('draining'),
  backup_amf_name: Type.Union([Type.String(), Type.Null()], {
    description:
      'the member its radios are told takes its UEs over (AMF Status Indication), as the database said',
  }),
});
