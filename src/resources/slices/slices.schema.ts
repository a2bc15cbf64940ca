import { Type } from 'typebox';
import { ResourceName, Sd, Sst } from '../../validation/network-values.ts';

export const SliceResult = Type.Object({
  name: Type.String(),
  sst: Type.Integer({ description: 'Slice/Service Type, 0..255' }),
  sd: Type.Optional(
    Type.String({ description: 'Slice Differentiator, 6 hex characters (lower case); absent when unset' }),
  ),
});

const sliceFields = { sst: Sst, sd: Type.Optional(Sd) };

export const CreateSliceBody = Type.Object(
  { name: ResourceName, ...sliceFields },
  { additionalProperties: false },
);

/** PUT replaces the slice: an absent `sd` removes it. */
export const UpdateSliceBody = Type.Object(sliceFields, { additionalProperties: false });
