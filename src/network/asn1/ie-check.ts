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
  notComprehended: IeAtFault[];
  /** Mandatory IEs absent (case 3, 10.3.5), with the criticality the ASN.1 gives them. */
  missing: IeAtFault[];
  /**
   * IEs out of the order of the message's object set, or present more than once (case 4, 10.3.6):
   * a falsely constructed message.
   */
  falselyConstructed: boolean;
}

/** Per object set, each IE's place in it; built on first use. */
const positions = new WeakMap<readonly IeSetEntry[], ReadonlyMap<number, number>>();

/**
 * Checks a received message's protocol IEs against its object set: which IEs it does not define, which
 * mandatory ones are absent, and whether the ones it defines come in the set's order, each once.
 * Conditional presence is not judged: its conditions are prose, not ASN.1.
 */
export function checkIesAgainst(set: readonly IeSetEntry[], ies: readonly ContainerIe[]): IeErrors {
  let places = positions.get(set);
  if (places === undefined) {
    places = new Map(set.map((spec, index) => [spec.id, index]));
    positions.set(set, places);
  }
  const notComprehended: IeAtFault[] = [];
  const seen = new Set<number>();
  let falselyConstructed = false;
  let last = -1;
  for (const ie of ies) {
    const place = places.get(ie.id);
    if (place === undefined) {
      if (!notComprehended.some((known) => known.id === ie.id))
        notComprehended.push({ id: ie.id, criticality: ie.criticality });
      continue;
    }
    // A place not after the previous one: out of order, or the same IE again (place === last).
    if (place <= last) falselyConstructed = true;
    last = Math.max(last, place);
    seen.add(ie.id);
  }
  const missing = set
    .filter((spec) => spec.presence === 'mandatory' && !seen.has(spec.id))
    .map((spec) => ({ id: spec.id, criticality: spec.criticality }));
  return { notComprehended, missing, falselyConstructed };
}
