import { Type } from 'typebox';
import {
  Bitrate,
  CidrPool,
  IpAddress,
  Ipv6Pool,
  Mtu,
  PriorityLevel,
  ResourceName,
  Var5qi,
} from '../../validation/network-values.ts';

// The contract spells profile fields with hyphens (`ue-ip-pool`), unlike every other resource.
const listedFields = {
  'ue-ip-pool': CidrPool,
  dns: IpAddress,
  'bitrate-uplink': Bitrate,
  'bitrate-downlink': Bitrate,
  var5qi: Var5qi,
  'priority-level': PriorityLevel,
};

const profileFields = {
  ...listedFields,
  mtu: Mtu,
  'ue-ipv6-pool': Type.Optional({
    ...Ipv6Pool,
    description: 'each IPv6 or IPv4v6 session gets its own /64 of it; IPv4 sessions only when absent',
  }),
  'sms-allowed': Type.Optional(
    Type.Boolean({
      description: "SMS over NAS for the profile's subscribers; true when absent (docs/sms.md)",
    }),
  ),
};

export const CreateProfileBody = Type.Object(
  { name: ResourceName, ...profileFields },
  { additionalProperties: false },
);

/**
 * PUT replaces the profile: an absent `ue-ipv6-pool` removes the profile's IPv6 pool, an absent
 * `sms-allowed` allows SMS (the default).
 */
export const UpdateProfileBody = Type.Object(profileFields, { additionalProperties: false });

/** List items leave out `mtu` and `ue-ipv6-pool` (the spec's Profile section); the single read carries them. */
export const ProfileListItem = Type.Object({
  name: Type.String(),
  'ue-ip-pool': Type.String(),
  dns: Type.String(),
  'bitrate-uplink': Type.String(),
  'bitrate-downlink': Type.String(),
  var5qi: Type.Integer(),
  'priority-level': Type.Integer(),
});

export const ProfileResult = Type.Object({
  ...ProfileListItem.properties,
  mtu: Type.Integer(),
  'ue-ipv6-pool': Type.Optional(Type.String({ description: 'absent when the profile has no IPv6 pool' })),
  'sms-allowed': Type.Boolean({ description: "SMS over NAS for the profile's subscribers" }),
});
