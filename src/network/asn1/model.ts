/**
 * The ASN.1 type model (X.680, X.681, X.683) of the subset 3GPP's NGAP, NRPPa and LPP modules use, as
 * the parser reads it: references stay names, resolved by the generator.
 */

/** A number, or the name of a value assignment (e.g. `maxnoofTACs`) or of a parameter. */
export type Value = number | string;

export interface Range {
  lb: Value;
  ub: Value;
  /** An extension marker `...` follows the root (X.680 49.4). */
  extensible: boolean;
}

export interface Component {
  name: string;
  type: Type;
  optional: boolean;
  /** `DEFAULT` components are optional on the wire (PER encodes them like OPTIONAL ones). */
  hasDefault: boolean;
}

/** An extension addition: one component, or a `[[ ]]` group of them. */
export type Addition = { group: false; component: Component } | { group: true; components: Component[] };

export interface NamedNumber {
  name: string;
  value: number | undefined;
}

/** An actual parameter of a parameterised reference: a value or an object set `{Set}`. */
export type Actual = { kind: 'value'; value: Value } | { kind: 'set'; name: string };

export type Type =
  | { kind: 'INTEGER'; range: Range | undefined }
  | { kind: 'BOOLEAN' }
  | { kind: 'NULL' }
  | { kind: 'ENUMERATED'; root: NamedNumber[]; additions: NamedNumber[] | undefined }
  | { kind: 'BIT STRING'; size: Range | undefined }
  | { kind: 'OCTET STRING'; size: Range | undefined; containing: Type | undefined }
  | { kind: 'STRING'; stringType: string; size: Range | undefined }
  | { kind: 'OBJECT IDENTIFIER' }
  | { kind: 'SEQUENCE'; root: Component[]; additions: Addition[] | undefined }
  | { kind: 'SEQUENCE OF'; size: Range | undefined; item: Type }
  | { kind: 'CHOICE'; root: Component[]; additions: Component[] | undefined }
  | { kind: 'REF'; name: string; args: Actual[] | undefined }
  /** `CLASS.&field ({Set})` or `({Set}{@component})`: an information object class field type. */
  | { kind: 'FIELD'; className: string; field: string; set: string | undefined; at: string | undefined };

export interface ClassField {
  name: string;
  /** The type of a fixed-type value field (`&id ProtocolIE-ID`); undefined for a type field. */
  type: Type | undefined;
  optional: boolean;
}

/** A WITH SYNTAX token: a literal word, a field slot, or an optional group. */
export type SyntaxToken =
  | { kind: 'word'; word: string }
  | { kind: 'field'; field: string }
  | { kind: 'optional'; tokens: SyntaxToken[] };

export interface ObjectClass {
  fields: ClassField[];
  syntax: SyntaxToken[];
}

export interface Parameter {
  governor: string;
  name: string;
}

/** One ASN.1 module's assignments; object and object set bodies stay tokens until their class is known. */
export interface Module {
  name: string;
  types: Map<string, { params: Parameter[] | undefined; type: Type }>;
  values: Map<string, { type: Type; value: Value }>;
  classes: Map<string, ObjectClass>;
  objects: Map<string, { className: string; body: string[] }>;
  objectSets: Map<string, { className: string; body: string[] }>;
}
