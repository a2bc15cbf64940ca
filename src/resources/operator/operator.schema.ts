import { Type } from 'typebox';
import { Hex128, Mcc, Mnc, Tac } from '../../validation/network-values.ts';

export const OperatorResult = Type.Object({
  id: Type.Object({ mcc: Type.String(), mnc: Type.String() }),
  tracking: Type.Object({ supportedTacs: Type.Array(Type.String()) }),
});

export const OperatorIdBody = Type.Object({ mcc: Mcc, mnc: Mnc }, { additionalProperties: false });

export const OperatorTrackingBody = Type.Object(
  {
    supportedTacs: Type.Array(Tac, {
      minItems: 1,
      maxItems: 256,
      uniqueItems: true,
      'x-error': 'must be a list of 1 to 256 different TACs',
    }),
  },
  { additionalProperties: false },
);

export const OperatorCodeBody = Type.Object({ operatorCode: Hex128 }, { additionalProperties: false });
