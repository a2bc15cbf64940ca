import { Type } from 'typebox';
import { Mcc, Mnc } from '../../validation/network-values.ts';

/**
 * Cell position fields (spec: Cell position; decisions section 12). Ranges where the spec is silent come
 * from the GAD shapes of 3GPP TS 23.032, which location results are expressed in: orientation of the
 * major axis 0..179 degrees (an ellipse is the same turned by 180), confidence 0..100 percent.
 */

const Rat = Type.Enum(['nr', 'eutra'], { description: '`nr` or `eutra`' });

/** 1 to 8 hex digits: a gNB ID has 22 to 32 bits, an eNB ID 20 or 28. */
const GnbId = Type.String({
  pattern: '^[0-9A-Fa-f]{1,8}$',
  'x-error': 'must be 1 to 8 hexadecimal characters',
  description: 'gNB (or eNB) identifier, hex; stored in lower case',
  examples: ['000001'],
});

const Metres = (description: string) =>
  Type.Number({
    minimum: 0,
    maximum: 100_000,
    'x-error': 'must be a number of metres 0..100000',
    description,
  });

const cellPositionFields = {
  rat: Rat,
  mcc: Mcc,
  mnc: Mnc,
  cell_identity: Type.String({
    pattern: '^[0-9A-Fa-f]{7}$|^[0-9A-Fa-f]{9}$',
    'x-error': 'must be hexadecimal: 9 digits (NCI) for nr, 7 digits (ECI) for eutra',
    description:
      'NR cell identity (9 hex digits) or E-UTRA cell identity (7 hex digits); stored in lower case',
    examples: ['00000001f'],
  }),
  gnb_id: Type.Optional(GnbId),
  latitude: Type.Number({
    minimum: -90,
    maximum: 90,
    'x-error': 'must be a number -90..90',
    description: 'WGS-84 degrees',
  }),
  longitude: Type.Number({
    minimum: -180,
    maximum: 180,
    'x-error': 'must be a number -180..180',
    description: 'WGS-84 degrees',
  }),
  altitude: Type.Optional(
    Type.Number({
      minimum: -32767,
      maximum: 32767,
      'x-error': 'must be a number of metres -32767..32767',
      description: 'metres above the WGS-84 ellipsoid (TS 23.032 range)',
    }),
  ),
  uncertainty_semi_major: Type.Optional(
    Metres('metres; the radius of the uncertainty circle of location results from this cell'),
  ),
  uncertainty_semi_minor: Type.Optional(Metres('metres; at most uncertainty_semi_major')),
  orientation_major: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 179,
      'x-error': 'must be an integer 0..179',
      description: 'degrees clockwise from north of the major axis, 0..179',
    }),
  ),
  confidence: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 100,
      'x-error': 'must be an integer 0..100',
      description: 'percent',
    }),
  ),
};

/** Create and PUT take the same fields: PUT replaces the record, so an absent optional field is removed. */
export const CellPositionBody = Type.Object(cellPositionFields, { additionalProperties: false });

export const CellPositionResult = Type.Object({
  id: Type.String({ description: 'UUIDv7, assigned by the service' }),
  ...cellPositionFields,
  source: Type.String({ description: 'origin of the record: `provisioned`; read only' }),
});

export const CellPositionCreated = Type.Object({ message: Type.String(), id: Type.String() });
