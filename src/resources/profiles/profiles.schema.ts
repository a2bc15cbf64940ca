import { Type } from 'typebox';
import {
  Bitrate,
  CidrPool,
  IpAddress,
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

const profileFields = { ...listedFields, mtu: Mtu };

export const CreateProfileBody = Type.Object(
  { name: ResourceName, ...profileFields },
  { additionalProperties: false },
);

export const UpdateProfileBody = Type.Object(profileFields, { additionalProperties: false });

/** List items leave out `mtu` (the spec's Profile section); the single read carries it. */
export const ProfileListItem = Type.Object({
  name: Type.String(),
  'ue-ip-pool': Type.String(),
  dns: Type.String(),
  'bitrate-uplink': Type.String(),
  'bitrate-downlink': Type.String(),
  var5qi: Type.Integer(),
  'priority-level': Type.Integer(),
});

export const ProfileResult = Type.Object({ ...ProfileListItem.properties, mtu: Type.Integer() });
