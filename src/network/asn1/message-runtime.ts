import { checkIesAgainst, placesInSet, type Criticality, type IeSetEntry } from './ie-check.ts';
import { ieFieldName } from './naming.ts';

/**
 * The runtime of generated message functions (`messages.ts` of NGAP and NRPPa): a message's PDU kind,
 * procedure, IE ids, criticalities and order all come from the protocol's generated tables (`ies.ts`),
 * so no caller types an id or a criticality.
 */

type Kind = 'initiatingMessage' | 'successfulOutcome' | 'unsuccessfulOutcome';

/** The tables of a generated `ies.ts`. */
export interface MessageTables {
  procedures: ReadonlyMap<
    number,
    {
      name: string;
      criticality: Criticality;
      initiatingMessage: string;
      successfulOutcome?: string;
      unsuccessfulOutcome?: string;
    }
  >;
  messageIes: ReadonlyMap<string, readonly (IeSetEntry & { name: string })[]>;
}

/** A message's place among the elementary procedures and its IEs with their fields. */
interface MessagePlace {
  kind: Kind;
  procedureCode: number;
  procedure: string;
  criticality: Criticality;
  set: readonly (IeSetEntry & { name: string })[];
  /** By place in `set`: the message object's field of the IE; computed on the message's first use. */
  fields: readonly string[] | undefined;
}

/** An IE as a protocol IE container holds it after decoding (`name` null: not of the message's set). */
interface ReceivedIe {
  id: number;
  name: string | null;
  criticality: Criticality;
  value: unknown;
}

/** A decoded PDU of the protocol: a CHOICE of the message kinds, each naming its procedure by code. */
interface AnyPdu {
  choice: string | null;
  value: unknown;
}

/** What `read<Message>` takes: the decoded PDU, or the message's protocol IEs. */
export type Received<Pdu> = Pdu | readonly ReceivedIe[];

/** An IE not comprehended or missing, as IE Criticality Diagnostics reports it (TS 38.413 9.3.1.3). */
export interface IeFault {
  id: number;
  criticality: Criticality;
  typeOfError: 'not-understood' | 'missing';
}

/**
 * A message read per TS 38.413 10.3 (TS 38.455 10.3): `notify` lists the IEs of criticality notify
 * not comprehended or missing, for the sender to be told (10.3.4.2, 10.3.5); IEs of criticality ignore
 * are dropped.
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

export interface MessageRuntime<Pdu> {
  /** The PDU of a message: its IEs that are present, in the order of its object set; `header` joins the procedure fields (NRPPa's transaction id). */
  buildMessage(this: void, messageType: string, message: object, header?: object): Pdu;
  /** Reads a message's IEs into its flat object, judging them per clause 10.3 (see ReadResult). */
  readMessage<M>(this: void, messageType: string, received: Received<Pdu>): ReadResult<M>;
}

export function createMessageRuntime<Pdu extends AnyPdu>(tables: MessageTables): MessageRuntime<Pdu> {
  const places = new Map<string, MessagePlace>();
  for (const [procedureCode, procedure] of tables.procedures) {
    const kinds: [Kind, string | undefined][] = [
      ['initiatingMessage', procedure.initiatingMessage],
      ['successfulOutcome', procedure.successfulOutcome],
      ['unsuccessfulOutcome', procedure.unsuccessfulOutcome],
    ];
    for (const [kind, message] of kinds) {
      if (message === undefined) continue;
      places.set(message, {
        kind,
        procedureCode,
        procedure: procedure.name,
        criticality: procedure.criticality,
        set: tables.messageIes.get(message) ?? [],
        fields: undefined,
      });
    }
  }
  const placeOf = (messageType: string): MessagePlace & { fields: readonly string[] } => {
    const place = places.get(messageType);
    // Only generated code calls this, with the names of the same tables.
    if (place === undefined) throw new Error(`no elementary procedure sends ${messageType}`);
    if (place.fields === undefined) place.fields = place.set.map((spec) => ieFieldName(spec.name));
    return place as MessagePlace & { fields: readonly string[] };
  };

  return {
    buildMessage(messageType, message, header) {
      const { set, fields, kind, procedureCode, procedure, criticality } = placeOf(messageType);
      const values = message as Record<string, unknown>;
      const protocolIEs: ReceivedIe[] = [];
      for (let index = 0; index < set.length; index++) {
        const value = values[fields[index]!];
        if (value === undefined) continue;
        const spec = set[index]!;
        protocolIEs.push({ id: spec.id, name: spec.name, criticality: spec.criticality, value });
      }
      const procedureValue =
        header === undefined
          ? { procedureCode, name: procedure, criticality, value: { protocolIEs } }
          : { procedureCode, name: procedure, criticality, ...header, value: { protocolIEs } };
      // The generated message type pairs each field with the type its IE id carries in the union;
      // TypeScript cannot follow the table.
      return { choice: kind, value: procedureValue } as unknown as Pdu;
    },

    readMessage<M>(messageType: string, received: Received<Pdu>): ReadResult<M> {
      const place = placeOf(messageType);
      const ies = Array.isArray(received)
        ? (received as readonly ReceivedIe[])
        : iesOf(received as Pdu, place);
      if (ies === undefined) return { ok: false, error: 'other-message' };
      const errors = checkIesAgainst(place.set, ies);
      if (errors.falselyConstructed) return { ok: false, error: 'falsely-constructed' };
      const reported = reportedFaults(errors.notComprehended, errors.missing);
      for (let i = 0; i < reported.length; i++)
        if (reported[i]!.criticality === 'reject') return { ok: false, error: 'reject', ies: reported };
      // Not falsely constructed: each IE of the set comes at most once, in the set's order.
      const places = placesInSet(place.set);
      const { fields } = place;
      const message: Record<string, unknown> = {};
      for (let i = 0; i < ies.length; i++) {
        const ie = ies[i]!;
        if (ie.name === null) continue;
        const index = places.get(ie.id);
        if (index !== undefined) message[fields[index]!] = ie.value;
      }
      // Each field holds the value of the IE the message type gives it (see buildMessage).
      return { ok: true, message: message as M, notify: reported };
    },
  };
}

const NO_FAULTS: readonly IeFault[] = Object.freeze([]);

/**
 * The IEs not comprehended, then the missing ones, as Criticality Diagnostics reports them: IE
 * Criticality ignore is never reported (TS 38.413 9.3.1.3).
 */
function reportedFaults(
  notComprehended: readonly { id: number; criticality: Criticality }[],
  missing: readonly { id: number; criticality: Criticality }[],
): readonly IeFault[] {
  if (notComprehended.length === 0 && missing.length === 0) return NO_FAULTS;
  const reported: IeFault[] = [];
  for (let i = 0; i < notComprehended.length; i++) {
    const { id, criticality } = notComprehended[i]!;
    if (criticality !== 'ignore') reported.push({ id, criticality, typeOfError: 'not-understood' });
  }
  for (let i = 0; i < missing.length; i++) {
    const { id, criticality } = missing[i]!;
    if (criticality !== 'ignore') reported.push({ id, criticality, typeOfError: 'missing' });
  }
  return reported;
}

/** The protocol IEs of a PDU when it is this message, else undefined. */
function iesOf(pdu: AnyPdu, place: MessagePlace): readonly ReceivedIe[] | undefined {
  if (pdu.choice !== place.kind) return undefined;
  const message = pdu.value as { procedureCode?: unknown; value?: { protocolIEs?: ReceivedIe[] } };
  if (message.procedureCode !== place.procedureCode) return undefined;
  return message.value?.protocolIEs;
}

/** The message type a generated `read<Message>` gives. */
export type MessageOf<Reader> = Reader extends (received: never) => ReadResult<infer M> ? M : never;

/**
 * A dispatch table by message name from a typed record of handlers: each handler gets the message as
 * its generated reader reads it (with the PDU and the caller's arguments); a message its reader refuses
 * (clause 10.3, judged and answered before dispatch) reaches no handler.
 */
export function handlerTable<
  Pdu,
  Readers extends Record<string, (received: Pdu) => ReadResult<unknown>>,
  Args extends unknown[],
>(
  readers: Readers,
  handlers: { [K in keyof Readers]?: (message: MessageOf<Readers[K]>, pdu: Pdu, ...args: Args) => void },
): ReadonlyMap<string, (pdu: Pdu, ...args: Args) => void> {
  const table = new Map<string, (pdu: Pdu, ...args: Args) => void>();
  for (const [name, handle] of Object.entries(handlers) as [
    keyof Readers & string,
    ((message: unknown, pdu: Pdu, ...args: Args) => void) | undefined,
  ][]) {
    const reader = readers[name];
    if (handle === undefined || reader === undefined) continue;
    table.set(name, (pdu, ...args) => {
      const read = reader(pdu);
      if (read.ok) handle(read.message, pdu, ...args);
    });
  }
  return table;
}
