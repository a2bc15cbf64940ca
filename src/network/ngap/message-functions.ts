import { ieFieldName } from '../asn1/naming.ts';
import { MESSAGE_IES, PROCEDURES, type IeSpec } from './generated/ies.ts';
import type { Criticality, NGAPPDU } from './generated/types.ts';
import { checkIes } from './ie-check.ts';

/**
 * The runtime of the generated message functions (generated/messages.ts): a message's PDU kind,
 * procedure, IE ids, criticalities and order all come from the generated tables (ies.ts), so no caller
 * types an id or a criticality.
 */

type Kind = 'initiatingMessage' | 'successfulOutcome' | 'unsuccessfulOutcome';

/** A message's place among the elementary procedures and its IEs with their fields. */
interface MessagePlace {
  kind: Kind;
  procedureCode: number;
  procedure: string;
  criticality: Criticality;
  ies: readonly { spec: IeSpec; field: string }[];
}

/** An IE as a protocol IE container holds it after decoding (`name` null: not of the message's set). */
interface ReceivedIe {
  id: number;
  name: string | null;
  criticality: Criticality;
  value: unknown;
}

/** What `read<Message>` takes: the decoded PDU, or the message's protocol IEs. */
export type Received = NGAPPDU | readonly ReceivedIe[];

/** An IE not comprehended or missing, as IE Criticality Diagnostics reports it (TS 38.413 9.3.1.3). */
export interface IeFault {
  id: number;
  criticality: Criticality;
  typeOfError: 'not-understood' | 'missing';
}

/**
 * A message read per TS 38.413 10.3: `notify` lists the IEs of criticality notify not comprehended
 * or missing, for the sender to be told (10.3.4.2, 10.3.5); IEs of criticality ignore are dropped.
 */
export type ReadResult<M> = { ok: true; message: M; notify: readonly IeFault[] } | ReadFailure;

/**
 * Why a message was not read: a PDU of another message; IEs out of order or repeated (10.3.6); or an
 * IE of criticality reject not comprehended or missing (10.3.4.2, 10.3.5), `ies` then listing every
 * such IE of criticality reject or notify for the Criticality Diagnostics.
 */
export type ReadFailure =
  | { ok: false; error: 'other-message' }
  | { ok: false; error: 'falsely-constructed' }
  | { ok: false; error: 'reject'; ies: readonly IeFault[] };

/** `M` with the fields `K` optional: mandatory IEs a receiver processes the message without (10.3.5). */
export type Lenient<M, K extends keyof M> = Omit<M, K> & Partial<Pick<M, K>>;

const places = new Map<string, MessagePlace>();

function placeOf(messageType: string): MessagePlace {
  if (places.size === 0) {
    for (const [procedureCode, procedure] of PROCEDURES) {
      const kinds: [Kind, string | undefined][] = [
        ['initiatingMessage', procedure.initiatingMessage],
        ['successfulOutcome', procedure.successfulOutcome],
        ['unsuccessfulOutcome', procedure.unsuccessfulOutcome],
      ];
      for (const [kind, message] of kinds) {
        if (message === undefined) continue;
        const ies = (MESSAGE_IES.get(message) ?? []).map((spec) => ({ spec, field: ieFieldName(spec.name) }));
        places.set(message, {
          kind,
          procedureCode,
          procedure: procedure.name,
          criticality: procedure.criticality,
          ies,
        });
      }
    }
  }
  const place = places.get(messageType);
  // Only generated code calls this, with the names of the same tables.
  if (place === undefined) throw new Error(`NGAP: no elementary procedure sends ${messageType}`);
  return place;
}

/** The PDU of a message: its IEs that are present, in the order of its object set. */
export function buildMessage(messageType: string, message: object): NGAPPDU {
  const place = placeOf(messageType);
  const fields = message as Record<string, unknown>;
  const protocolIEs: ReceivedIe[] = [];
  for (const { spec, field } of place.ies) {
    const value = fields[field];
    if (value !== undefined)
      protocolIEs.push({ id: spec.id, name: spec.name, criticality: spec.criticality, value });
  }
  // The generated message type pairs each field with the type its IE id carries in the union; the
  // table cannot be followed by TypeScript.
  return {
    choice: place.kind,
    value: {
      procedureCode: place.procedureCode,
      name: place.procedure,
      criticality: place.criticality,
      value: { protocolIEs },
    },
  } as unknown as NGAPPDU;
}

/** Reads a message's IEs into its flat object, judging them per TS 38.413 10.3 (see ReadResult). */
export function readMessage<M>(messageType: string, received: Received): ReadResult<M> {
  const place = placeOf(messageType);
  const ies = isIeList(received) ? received : iesOf(received, place);
  if (ies === undefined) return { ok: false, error: 'other-message' };
  const errors = checkIes(messageType, ies);
  if (errors === undefined) return { ok: false, error: 'other-message' };
  if (errors.falselyConstructed) return { ok: false, error: 'falsely-constructed' };
  const faults: IeFault[] = [
    ...errors.notComprehended.map((ie) => ({ ...ie, typeOfError: 'not-understood' as const })),
    ...errors.missing.map((ie) => ({ ...ie, typeOfError: 'missing' as const })),
  ];
  // IE Criticality ignore is never reported (9.3.1.3).
  const reported = faults.filter((ie) => ie.criticality !== 'ignore');
  if (reported.some((ie) => ie.criticality === 'reject'))
    return { ok: false, error: 'reject', ies: reported };
  const message: Record<string, unknown> = {};
  for (const { spec, field } of place.ies) {
    const ie = ies.find((candidate) => candidate.id === spec.id && candidate.name !== null);
    if (ie !== undefined) message[field] = ie.value;
  }
  // Each field holds the value of the IE the message type gives it (see buildMessage).
  return { ok: true, message: message as M, notify: reported };
}

function isIeList(received: Received): received is readonly ReceivedIe[] {
  return Array.isArray(received);
}

/** The protocol IEs of a PDU when it is this message, else undefined. */
function iesOf(pdu: NGAPPDU, place: MessagePlace): readonly ReceivedIe[] | undefined {
  if (pdu.choice !== place.kind || pdu.value.procedureCode !== place.procedureCode) return undefined;
  return (pdu.value.value as { protocolIEs?: ReceivedIe[] }).protocolIEs;
}
