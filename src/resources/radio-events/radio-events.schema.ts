import { Type } from 'typebox';
import {
  Base64Raw,
  ImsiQuery,
  JsonDetails,
  LogDirection,
  LogDirectionQuery,
  NameQuery,
  RecordTimestamp,
  TimestampRangeQuery,
} from '../../http/record-schemas.ts';
import { PaginationQuery } from '../../http/schemas.ts';

/** The subscriber filter: events whose `details.imsi` names it (recorded once the AMF knew the SUPI). */
const RadioEventImsi = {
  ...ImsiQuery,
  description: 'only the events of this subscriber (their details name it once the AMF knew its SUPI)',
};

/** The radio filter: events whose `details.radio` is this name (network.md section 3). */
const RadioEventRadio = {
  ...NameQuery,
  description: 'only the events of the radio of this name (their details.radio)',
};

export const RadioEventQuery = Type.Object({
  ...PaginationQuery.properties,
  protocol: Type.Optional({ ...NameQuery, description: 'protocol, e.g. NGAP' }),
  direction: Type.Optional(LogDirectionQuery),
  message_type: Type.Optional({ ...NameQuery, description: 'message type, e.g. NGSetupRequest' }),
  imsi: Type.Optional(RadioEventImsi),
  radio: Type.Optional(RadioEventRadio),
  ...TimestampRangeQuery,
});

/** The list's filters without pagination, for the pcapng export (radio-events-export.ts). */
export const RadioEventExportQuery = Type.Object({
  protocol: Type.Optional({ ...NameQuery, description: 'NGAP, the only protocol the export carries' }),
  direction: Type.Optional(LogDirectionQuery),
  message_type: Type.Optional({ ...NameQuery, description: 'message type, e.g. NGSetupRequest' }),
  ...TimestampRangeQuery,
  imsi: Type.Optional(RadioEventImsi),
  radio: Type.Optional(RadioEventRadio),
});

export const RadioEventItem = Type.Object({
  id: Type.Integer(),
  timestamp: RecordTimestamp,
  protocol: Type.String(),
  message_type: Type.String(),
  direction: LogDirection,
  raw: Base64Raw,
  details: JsonDetails,
});

export const RadioEventParams = Type.Object({
  id: Type.Integer({ minimum: 1, 'x-error': 'must be a positive integer' }),
});

export const DecodedRadioEvent = Type.Object({
  raw: Base64Raw,
  decoded: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'The message decoded by its protocol’s decoder: for NGAP a member named for the outcome kind ' +
        '(initiating_message, successful_outcome, unsuccessful_outcome) holding procedure_code, ' +
        'criticality and value. `{}` when no decoder is registered for the protocol or the stored ' +
        'bytes do not decode.',
    },
  ),
});
