import { Type } from 'typebox';
import { Arp, Bitrate, DataNetworkName, ResourceName, Var5qi } from '../../validation/network-values.ts';

const policyFields = {
  bitrate_uplink: Bitrate,
  bitrate_downlink: Bitrate,
  var5qi: Var5qi,
  arp: Arp,
  data_network_name: DataNetworkName,
  profile_name: Type.Optional({
    ...ResourceName,
    description: 'only subscribers on this profile; any profile when absent',
  }),
  slice_name: Type.Optional({ ...ResourceName, description: 'only on this slice; any slice when absent' }),
};

export const CreatePolicyBody = Type.Object(
  { name: ResourceName, ...policyFields },
  { additionalProperties: false },
);

/** PUT replaces the policy: an absent `profile_name` or `slice_name` removes that restriction. */
export const UpdatePolicyBody = Type.Object(policyFields, { additionalProperties: false });

export const PolicyResult = Type.Object({
  name: Type.String(),
  bitrate_uplink: Type.String(),
  bitrate_downlink: Type.String(),
  var5qi: Type.Integer(),
  arp: Type.Integer(),
  data_network_name: Type.String(),
  profile_name: Type.Optional(Type.String({ description: 'absent when the policy applies to any profile' })),
  slice_name: Type.Optional(Type.String({ description: 'absent when the policy applies to any slice' })),
});
