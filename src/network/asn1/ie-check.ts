/** Criticality of an IE or procedure (the same ENUMERATED in NGAP and NRPPa). */
export type Criticality = 'reject' | 'ignore' | 'notify';

/** One IE of a message's object set as a generated `ies.ts` lists it. */
export interface IeSetEntry {
  readonly id: number;
  readonly criticality: Criticality;
  readonly presence: string;
}

/** An IE as a protocol IE container holds it, decoded or not. */
interface ContainerIe {
  id: number;
  criticality: Criticality;
}

/** An IE id and the criticality that decides what its error does (TS 38.413 10.3.2, TS 38.455 10.3.2). */
export interface IeAtFault {
  id: number;
  criticality: Criticality;
}

/** The abstract syntax errors of one message's IE container (TS 38.413 10.3.1). */
export interface IeErrors {
  /**
   * IEs the message does not define (10.3.1 case 1, handled as 10.3.4.2), each id once, with the
   * criticality they were received with: the sender's instruction for a receiver that does not know them.
   */
  readonly notComprehended: readonly IeAtFault[];
  /** Mandatory IEs absent (case 3, 10.3.5), with the criticality the ASN.1 gives them. */
  readonly missing: readonly IeAtFault[];
  /**
   * IEs out of the order of the message's object set, or present more than once (case 4, 10.3.6):
   * a falsely constructed message.
   */
  readonly falselyConstructed: boolean;
}

/** What the check needs of an object set, computed once per set: each IE's place, and the mandatory ones. */
interface SetTable {
  readonly places: ReadonlyMap<number, number>;
  /** By place: whether the IE there is mandatory. */
  readonly mandatoryAt: readonly boolean[];
  readonly mandatory: readonly IeSetEntry[];
}

const tables = new WeakMap<readonly IeSetEntry[], SetTable>();

function tableOf(set: readonly IeSetEntry[]): SetTable {
  let table = tables.get(set);
  if (table === undefined) {
    const places = new Map<number, number>();
    const mandatoryAt: boolean[] = [];
    const mandatory: IeSetEntry[] = [];
    for (let index = 0; index < set.length; index++) {
      const spec = set[index]!;
      places.set(spec.id, index);
      mandatoryAt.push(spec.presence === 'mandatory');
      if (spec.presence === 'mandatory') mandatory.push(spec);
    }
    table = { places, mandatoryAt, mandatory };
    tables.set(set, table);
  }
  return table;
}

const NONE: readonly IeAtFault[] = Object.freeze([]);
const NO_ERRORS: IeErrors = Object.freeze({
  notComprehended: NONE,
  missing: NONE,
  falselyConstructed: false,
});

/**
 * Checks a received message's protocol IEs against its object set: which IEs it does not define, which
 * mandatory ones are absent, and whether the ones it defines come in the set's order, each once.
 * Conditional presence is not judged: its conditions are prose, not ASN.1. The result is shared: read only.
 */
export function checkIesAgainst(set: readonly IeSetEntry[], ies: readonly ContainerIe[]): IeErrors {
  return check(tableOf(set), ies);
}

function check(table: SetTable, ies: readonly ContainerIe[]): IeErrors {
  const { places, mandatoryAt, mandatory } = table;
  let notComprehended: IeAtFault[] | undefined;
  let falselyConstructed = false;
  let previous = -1;
  // Mandatory IEs met in rising places, so each counted once: all are present when this reaches their
  // count (else, or when places did not rise, the missing ones are looked up below).
  let mandatoryPresent = 0;
  for (let i = 0; i < ies.length; i++) {
    const ie = ies[i]!;
    const place = places.get(ie.id);
    if (place === undefined) {
      notComprehended ??= [];
      if (!includesId(notComprehended, ie.id))
        notComprehended.push({ id: ie.id, criticality: ie.criticality });
      continue;
    }
    // A place not after the previous one: out of order, or the same IE again (place === previous).
    if (place <= previous) {
      falselyConstructed = true;
      continue;
    }
    previous = place;
    if (mandatoryAt[place]!) mandatoryPresent++;
  }
  let missing: IeAtFault[] | undefined;
  if (mandatoryPresent < mandatory.length || falselyConstructed) {
    for (let m = 0; m < mandatory.length; m++) {
      const spec = mandatory[m]!;
      if (!includesId(ies, spec.id)) (missing ??= []).push({ id: spec.id, criticality: spec.criticality });
    }
  }
  if (notComprehended === undefined && missing === undefined && !falselyConstructed) return NO_ERRORS;
  // Frozen: the result is shared with the next check of the same container.
  return Object.freeze({
    notComprehended: notComprehended === undefined ? NONE : Object.freeze(notComprehended),
    missing: missing === undefined ? NONE : Object.freeze(missing),
    falselyConstructed,
  });
}

function includesId(ies: readonly { id: number }[], id: number): boolean {
  for (let i = 0; i < ies.length; i++) if (ies[i]!.id === id) return true;
  return false;
}
