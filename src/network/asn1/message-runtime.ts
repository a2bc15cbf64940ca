import { checkIesAgainst, type Criticality, type IeSetEntry } from './ie-check.ts';

/**
 * The runtime of generated message readers (`messages.ts` of NGAP and NRPPa): which PDU is a message and
 * the clause 10.3 judgement of its IEs, from the protocol's generated tables (`ies.ts`), before the
 * generated fill takes the IEs into the message's fields.
 */

type Kind = 'initiatingMessage' | 'successfulOutcome' | 'unsuccessfulOutcome';

/** The tables of a generated `ies.ts`. */
interface MessageTables {
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
  /** The IE containers outside the messages (NGAP's request transfers), by type name. */
  containerIes?: ReadonlyMap<string, readonly IeSetEntry[]>;
}

/** A message's place among the elementary procedures and its IEs. */
interface MessagePlace {
  kind: Kind;
  procedureCode: number;
  set: readonly IeSetEntry[];
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
interface IeFault {
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

interface MessageRuntime<Pdu> {
  /**
   * Reads a message, judging its IEs per clause 10.3 (see ReadResult); when they pass, `fill` (the
   * generated one of the message) takes them into its flat object. `Ies` is the message's container type.
   */
  readMessage<M, Ies extends readonly ReceivedIe[]>(
    this: void,
    messageType: string,
    received: Received<Pdu>,
    fill: (ies: Ies) => M,
  ): ReadResult<M>;
  /**
   * Reads a protocol IE container outside the messages (a request transfer's `protocolIEs`) as
   * `readMessage` reads a message's: judged per clause 10.3 against its type's set, then filled.
   */
  readContainer<M, Ies extends readonly ReceivedIe[]>(
    this: void,
    type: string,
    ies: Ies,
    fill: (ies: Ies) => M,
  ): ReadResult<M>;
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
      places.set(message, { kind, procedureCode, set: tables.messageIes.get(message) ?? [] });
    }
  }

  return {
    readMessage<M, Ies extends readonly ReceivedIe[]>(
      messageType: string,
      received: Received<Pdu>,
      fill: (ies: Ies) => M,
    ): ReadResult<M> {
      const place = places.get(messageType);
      // Only generated code calls this, with the names of the same tables.
      if (place === undefined) throw new Error(`no elementary procedure sends ${messageType}`);
      const ies = Array.isArray(received)
        ? (received as readonly ReceivedIe[])
        : iesOf(received as Pdu, place);
      if (ies === undefined) return { ok: false, error: 'other-message' };
      // The container of this message: its IEs carry the values its union type pairs with their names.
      return judged(place.set, ies as unknown as Ies, fill);
    },

    readContainer<M, Ies extends readonly ReceivedIe[]>(
      type: string,
      ies: Ies,
      fill: (ies: Ies) => M,
    ): ReadResult<M> {
      const set = tables.containerIes?.get(type);
      // Only generated code calls this, with the names of the same tables.
      if (set === undefined) throw new Error(`no IE container type ${type}`);
      return judged(set, ies, fill);
    },
  };
}

/** The clause 10.3 judgement of an IE container against its set; when it passes, `fill` reads it. */
function judged<M, Ies extends readonly ReceivedIe[]>(
  set: readonly IeSetEntry[],
  ies: Ies,
  fill: (ies: Ies) => M,
): ReadResult<M> {
  const errors = checkIesAgainst(set, ies);
  if (errors.falselyConstructed) return { ok: false, error: 'falsely-constructed' };
  const reported = reportedFaults(errors.notComprehended, errors.missing);
  for (let i = 0; i < reported.length; i++)
    if (reported[i]!.criticality === 'reject') return { ok: false, error: 'reject', ies: reported };
  return { ok: true, message: fill(ies), notify: reported };
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
