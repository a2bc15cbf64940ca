import { Type } from 'typebox';
import { DataNetworkName } from '../../validation/network-values.ts';

export const DataNetworkResult = Type.Object({
  name: Type.String({ description: 'the DNN' }),
  status: Type.Object({
    sessions: Type.Integer({ description: 'PDU sessions established towards this data network now' }),
  }),
});

/** Create and update share it: the name (the DNN) is the one thing stored about a data network. */
export const DataNetworkBody = Type.Object({ name: DataNetworkName }, { additionalProperties: false });
