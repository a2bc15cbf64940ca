import { Type } from 'typebox';

/** `imsi-` and 15 digits (TS 29.571 `Supi` of type IMSI; IMSIs here have 15 digits, spec rule 4). */
const Supi = Type.String({
  pattern: '^imsi-[0-9]{15}$',
  'x-error': 'must be "imsi-" followed by 15 digits',
  examples: ['imsi-001010000000001'],
});

export const LocationRequestBody = Type.Object(
  {
    request_type: Type.Enum(['immediate', 'periodic', 'triggered', 'cancel']),
    supi: Type.Optional(Supi),
    method: Type.Optional(
      Type.Enum(['cell_id', 'ecid', 'gnss'], {
        description:
          'default `cell_id` (the serving cell, refreshed by Location Reporting Control when older than ' +
          '300 s); `ecid`: E-CID measurements from the radio over NRPPa (`network_based`: timing advance ' +
          'and angle of arrival refine the estimate) and from the device over LPP (`ue_assisted`: its ' +
          "RSRP/RSRQ as `radioMeasurements`); `gnss`: the device's own GNSS estimate over LPP. 409 when N2 " +
          'is not running or the device lacks the capability; a measurement that fails or times out gives ' +
          'the Cell ID estimate with that method marked `UNSUCCESS`',
      }),
    ),
    mode: Type.Optional(
      Type.Enum(['network_based', 'ue_assisted', 'standalone'], {
        description:
          'a mode of the method: `network_based` for `cell_id`; `network_based` or `ue_assisted` for `ecid`; ' +
          '`standalone` for `gnss`. Default: every mode of the method',
      }),
    ),
    session_id: Type.Optional(
      Type.String({ maxLength: 256, description: 'required when request_type is `cancel`, and only then' }),
    ),
    interval_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 86_400,
        'x-error': 'must be an integer 1..86400',
        description: '`periodic` only: seconds between estimates, 1..86400, default 60',
      }),
    ),
    report_count: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        'x-error': 'must be an integer 1..1000000',
        description:
          '`periodic` and `triggered` only: the session completes after this many estimates (the one at ' +
          'creation included); without it, it runs until cancelled',
      }),
    ),
  },
  { additionalProperties: false },
);

const PlmnId = Type.Object({ mcc: Type.String(), mnc: Type.String() });

const RadioMeasurement = Type.Object({
  source: Type.String({ description: 'who measured: `UE` (LPP) or `NETWORK` (the radio, NRPPa)' }),
  rat: Type.String({ description: '`NR` or `EUTRA`' }),
  serving: Type.Boolean(),
  pci: Type.Integer(),
  arfcn: Type.Integer(),
  arfcnType: Type.Optional(Type.String({ description: 'NR, e.g. `SSB`' })),
  ssRsrp: Type.Optional(Type.Number({ description: 'NR, dBm' })),
  ssRsrq: Type.Optional(Type.Number({ description: 'NR, dB' })),
  ssbBeams: Type.Optional(
    Type.Array(Type.Object({ index: Type.Integer(), rsrp: Type.Number(), rsrq: Type.Number() })),
  ),
  rsrp: Type.Optional(Type.Number({ description: 'E-UTRA, dBm' })),
  rsrq: Type.Optional(Type.Number({ description: 'E-UTRA, dB' })),
});

export const LocationResultSchema = Type.Object(
  {
    locationEstimate: Type.Object({
      shape: Type.String({ description: '`POINT_UNCERTAINTY_CIRCLE`' }),
      point: Type.Object({ lat: Type.Number(), lon: Type.Number() }),
      uncertainty: Type.Number({ description: 'radius in metres' }),
    }),
    positioningDataList: Type.Array(
      Type.Object({ method: Type.String(), mode: Type.String(), usage: Type.String() }),
      {
        description:
          'per method and mode what was used (TS 29.572): method `CELLID`, `NR_ECID` or `ECID`; mode ' +
          '`CONVENTIONAL` (network based) or `UE_ASSISTED`; usage `SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION`, ' +
          '`SUCCESS_RESULTS_NOT_USED` or `UNSUCCESS`',
      },
    ),
    gnssPositioningDataList: Type.Optional(
      Type.Array(Type.Object({ mode: Type.String(), gnss: Type.String(), usage: Type.String() }), {
        description: '`gnss` only (TS 29.572): mode `UE_BASED` (standalone), gnss `GPS`, usage as above',
      }),
    ),
    ncgi: Type.Optional(
      Type.Object(
        { plmnId: PlmnId, nrCellId: Type.String() },
        { description: 'the NR serving cell (absent for an E-UTRA cell, which gives `ecgi`)' },
      ),
    ),
    ecgi: Type.Optional(
      Type.Object(
        { plmnId: PlmnId, eutraCellId: Type.String() },
        { description: 'the E-UTRA serving cell (an ng-eNB), instead of `ncgi`' },
      ),
    ),
    radioMeasurements: Type.Optional(
      Type.Array(RadioMeasurement, {
        description: 'E-CID: the measurements its NRPPa and LPP answers carried',
      }),
    ),
  },
  { description: 'A location estimate (Cell ID, E-CID or GNSS)' },
);

const sessionFields = {
  id: Type.String({ description: 'UUIDv7' }),
  supi: Type.String(),
  session_type: Type.Integer({ description: '0 immediate, 1 periodic, 2 triggered' }),
  method: Type.String(),
  status: Type.Integer({ description: '0 active, 1 completed, 2 failed, 3 cancelled' }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  updated_at: Type.Integer({ description: 'Unix seconds' }),
};

export const SessionItem = Type.Object(sessionFields);

export const SessionDetail = Type.Object({
  ...sessionFields,
  last_result: Type.Union([LocationResultSchema, Type.Null()], {
    description: 'the most recent estimate; null before the first one',
  }),
});

export const SessionsQuery = Type.Object({ supi: Supi });

export const SessionCreated = Type.Object({ id: Type.String({ description: 'the session id' }) });
