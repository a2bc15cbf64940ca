import type { Addition, Component, NamedNumber, Range, Type, Value } from './model.ts';
import { propertyName, snakeCase, typeName } from './naming.ts';
import type { InfoObject } from './schema.ts';
import { Schema } from './schema.ts';

/** What to generate for one protocol. */
export interface GeneratorOptions {
  /** X.691 ALIGNED (NGAP, NRPPa) or UNALIGNED (LPP) PER. */
  aligned: boolean;
  /** Import path of the ASN.1 runtime directory, relative to the generated files. */
  runtime: string;
  /**
   * Hand-written views for types the contract shows specially (e.g. `PLMNIdentity` -> `{mcc, mnc}`):
   * ASN.1 type name -> function name exported by `viewHelpers`, called as `(value, hooks)`.
   */
  views?: Record<string, string>;
  /** Import path of the module exporting those functions and the hooks type `ViewHooks`. */
  viewHelpers?: string;
  /**
   * Types that carry key material (fixed-size BIT or OCTET STRINGs, e.g. NGAP's `SecurityKey`): their
   * decoders tell the reader where they lie, so that a recorded PDU can be zeroed there
   * (`redactKeyMaterial`), and their views never show them.
   */
  keyMaterial?: readonly string[];
  /** A line naming the source, written at the top of each file. */
  source: string;
}

/** The generated files: TypeScript types, the PER codec, the JSON view. */
export interface GeneratedFiles {
  'types.ts': string;
  'codec.ts': string;
  'view.ts': string;
}

type Env = ReadonlyMap<string, Value>;
type SetEnv = ReadonlyMap<string, string>;

interface Unit {
  name: string;
  type: Type;
  values: Env;
  sets: SetEnv;
  /** The ASN.1 name of a named type (for special views); undefined for anonymous inner types. */
  asn1: string | undefined;
}

interface Size {
  lb: number;
  ub: number;
  extensible: boolean;
}

const K64 = 65536;

/** Bits of a bit-field holding 0..range-1 (X.691 10.5.7.1). */
function bitsFor(range: number): number {
  let bits = 0;
  while (2 ** bits < range) bits++;
  return bits;
}

function octetsFor(range: number): number {
  let octets = 1;
  while (2 ** (8 * octets) < range) octets++;
  return octets;
}

const quote = (text: string): string => `'${text}'`;

/**
 * Emits straight-line TypeScript decoders, encoders and JSON views for every type of a protocol's
 * ASN.1 modules: one function per type, each PER decision (field widths, alignment, lengths) taken here
 * at generation time, so nothing walks a schema at run time.
 */
export class Generator {
  private readonly schema: Schema;
  private readonly units = new Map<string, Unit>();
  private readonly queue: Unit[] = [];
  private readonly typesOut: string[] = [];
  private readonly constsOut: string[] = [];
  private readonly decodersOut: string[] = [];
  private readonly encodersOut: string[] = [];
  private readonly viewsOut: string[] = [];
  private readonly viewHelpersUsed = new Set<string>();
  /** Codec constants the view or the friendly layers need (enumeration indexes, message names). */
  private readonly codecExports = new Set<string>();

  constructor(
    modules: ConstructorParameters<typeof Schema>[0],
    private readonly options: GeneratorOptions,
  ) {
    this.schema = new Schema(modules);
  }

  generate(): GeneratedFiles {
    for (const [name, assignment] of [...this.schema.types].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      if (assignment.params === undefined)
        this.unit(typeName(name), assignment.type, new Map(), new Map(), name);
    for (let unit = this.queue.shift(); unit !== undefined; unit = this.queue.shift()) this.emit(unit);
    return this.files();
  }

  // ---- units -------------------------------------------------------------------------------------

  private unit(name: string, type: Type, values: Env, sets: SetEnv, asn1: string | undefined): string {
    const existing = this.units.get(name);
    if (existing !== undefined) {
      if (existing.type !== type) throw new Error(`generator: two types named ${name}`);
      return name;
    }
    const unit: Unit = { name, type, values, sets, asn1 };
    this.units.set(name, unit);
    this.queue.push(unit);
    return name;
  }

  /** The unit a reference names, instantiating a parameterised type with its actual parameters. */
  private refUnit(type: Extract<Type, { kind: 'REF' }>, values: Env, sets: SetEnv): string {
    const assignment = this.schema.types.get(type.name);
    if (assignment === undefined) throw new Error(`generator: unknown type ${type.name}`);
    if (assignment.params === undefined)
      return this.unit(typeName(type.name), assignment.type, new Map(), new Map(), type.name);
    const args = type.args ?? [];
    if (args.length !== assignment.params.length)
      throw new Error(`generator: ${type.name} needs ${assignment.params.length} parameters`);
    const boundValues = new Map<string, Value>();
    const boundSets = new Map<string, string>();
    const labels: string[] = [];
    assignment.params.forEach((param, index) => {
      const arg = args[index]!;
      if (arg.kind === 'set') {
        const set = sets.get(arg.name) ?? arg.name;
        boundSets.set(param.name, set);
        labels.push(typeName(set));
      } else {
        const value = typeof arg.value === 'string' ? (values.get(arg.value) ?? arg.value) : arg.value;
        boundValues.set(param.name, value);
        labels.push(typeName(String(value)));
      }
    });
    return this.unit(
      `${typeName(type.name)}_${labels.join('_')}`,
      assignment.type,
      boundValues,
      boundSets,
      undefined,
    );
  }

  /** Types whose values need a function of their own (anonymous ones are named after their place). */
  private structured(type: Type): boolean {
    return (
      type.kind === 'SEQUENCE' ||
      type.kind === 'CHOICE' ||
      type.kind === 'SEQUENCE OF' ||
      type.kind === 'ENUMERATED'
    );
  }

  private num(value: Value, values: Env): number {
    return this.schema.number(value, values);
  }

  private size(range: Range | undefined, values: Env): Size | undefined {
    if (range === undefined) return undefined;
    return { lb: this.num(range.lb, values), ub: this.num(range.ub, values), extensible: range.extensible };
  }

  // ---- expressions for a type at a use site ------------------------------------------------------

  private tsType(type: Type, unit: Unit, hint: string): string {
    switch (type.kind) {
      case 'INTEGER':
        return 'number';
      case 'BOOLEAN':
        return 'boolean';
      case 'NULL':
        return 'null';
      case 'BIT STRING':
        return 'BitString';
      case 'OCTET STRING':
      case 'OBJECT IDENTIFIER':
        return 'Uint8Array';
      case 'STRING':
        return 'string';
      case 'REF':
        return this.refUnit(type, unit.values, unit.sets);
      case 'FIELD':
        return this.tsType(this.fieldType(type), unit, hint);
      default:
        return this.unit(hint, type, unit.values, unit.sets, undefined);
    }
  }

  /** The fixed type of a value field of a class (`NGAP-PROTOCOL-IES.&id` -> ProtocolIE-ID). */
  private fieldType(type: Extract<Type, { kind: 'FIELD' }>): Type {
    const objectClass = this.schema.classes.get(type.className);
    const field = objectClass?.fields.find((f) => f.name === type.field);
    if (field?.type === undefined)
      throw new Error(`generator: ${type.className}.${type.field} is not a fixed-type field`);
    return field.type;
  }

  /** Integer decode expression for a constrained whole number lb..ub (X.691 10.5). */
  private intDecode(lb: number, ub: number): string {
    const range = ub - lb + 1;
    if (range === 1) return String(lb);
    if (!this.options.aligned || range <= 255) return `r.bitsInt(${lb}, ${ub}, ${bitsFor(range)})`;
    if (range === 256) return `r.octetsInt(${lb}, ${ub}, 1)`;
    if (range <= K64) return `r.octetsInt(${lb}, ${ub}, 2)`;
    return `r.lengthInt(${lb}, ${ub}, ${bitsFor(octetsFor(range))})`;
  }

  private intEncode(value: string, lb: number, ub: number): string {
    const range = ub - lb + 1;
    if (range === 1) return '';
    if (!this.options.aligned || range <= 255) return `w.bitsInt(${value}, ${lb}, ${ub}, ${bitsFor(range)});`;
    if (range === 256) return `w.octetsInt(${value}, ${lb}, ${ub}, 1);`;
    if (range <= K64) return `w.octetsInt(${value}, ${lb}, ${ub}, 2);`;
    return `w.lengthInt(${value}, ${lb}, ${ub}, ${bitsFor(octetsFor(range))});`;
  }

  /** A length or count under a SIZE constraint (X.691 10.9.4): undefined size means a general length. */
  private lengthDecode(size: Size | undefined, general: string): string {
    if (size === undefined || size.ub >= K64) return general;
    const root = this.intDecode(size.lb, size.ub);
    return size.extensible ? `(r.bit() ? ${general} : ${root})` : root;
  }

  private decode(type: Type, unit: Unit, hint: string): string {
    const values = unit.values;
    switch (type.kind) {
      case 'INTEGER': {
        if (type.range === undefined) return 'r.unconstrainedInt()';
        const lb = this.num(type.range.lb, values);
        const ub = this.num(type.range.ub, values);
        const root = this.intDecode(lb, ub);
        return type.range.extensible ? `(r.bit() ? r.unconstrainedInt() : ${root})` : root;
      }
      case 'BOOLEAN':
        return 'r.bit()';
      case 'NULL':
        return 'null';
      case 'BIT STRING':
        return this.sizedDecode(
          this.size(type.size, values),
          'r.alignedBitString(r.generalLength())',
          (n) => (n <= 16 ? `r.bitString(${n})` : `r.alignedBitString(${n})`),
          (length) => `r.alignedBitString(${length})`,
        );
      case 'OCTET STRING':
        return this.sizedDecode(
          this.size(type.size, values),
          'r.generalOctets()',
          (n) => (n <= 2 ? `r.octets(${n})` : `r.alignedOctets(${n})`),
          (length) => `r.alignedOctets(${length})`,
        );
      case 'OBJECT IDENTIFIER':
        return 'r.generalOctets()';
      case 'STRING': {
        if (type.stringType === 'UTF8String') return 'r.utf8()';
        const width = this.charWidth(type.stringType);
        return this.sizedDecode(
          this.size(type.size, values),
          `r.chars(r.generalLength(), ${width}, true)`,
          (n) => `r.chars(${n}, ${width}, ${n * width > 16})`,
          (length) => `r.chars(${length}, ${width}, true)`,
        );
      }
      case 'REF':
        return `decode${this.refUnit(type, values, unit.sets)}(r)`;
      case 'FIELD':
        return this.decode(this.fieldType(type), unit, hint);
      default:
        return `decode${this.unit(hint, type, values, unit.sets, undefined)}(r)`;
    }
  }

  /**
   * A decode under a SIZE constraint (X.691 16, 17, 30.5): fixed sizes below 64K carry no length,
   * other sizes below 64K a constrained whole number, the rest a general length; an extensible size
   * first reads its bit (outside the root: the general form).
   */
  private sizedDecode(
    size: Size | undefined,
    general: string,
    fixed: (n: number) => string,
    counted: (length: string) => string,
  ): string {
    if (size === undefined || size.ub >= K64) return general;
    const root = size.lb === size.ub ? fixed(size.ub) : counted(this.intDecode(size.lb, size.ub));
    return size.extensible ? `(r.bit() ? ${general} : ${root})` : root;
  }

  /** Bits per character of a known-multiplier string (X.691 30.5.3): 7 unaligned, 8 aligned. */
  private charWidth(stringType: string): number {
    if (stringType === 'NumericString') throw new Error('generator: NumericString is not supported');
    return this.options.aligned ? 8 : 7;
  }

  private encode(type: Type, unit: Unit, hint: string, value: string): string[] {
    const values = unit.values;
    switch (type.kind) {
      case 'INTEGER': {
        if (type.range === undefined) return [`w.unconstrainedInt(${value});`];
        const lb = this.num(type.range.lb, values);
        const ub = this.num(type.range.ub, values);
        if (!type.range.extensible) return [this.intEncode(value, lb, ub)];
        return [
          `if (${value} >= ${lb} && ${value} <= ${ub}) {`,
          'w.bit(false);',
          this.intEncode(value, lb, ub),
          '} else {',
          'w.bit(true);',
          `w.unconstrainedInt(${value});`,
          '}',
        ];
      }
      case 'BOOLEAN':
        return [`w.bit(${value});`];
      case 'NULL':
        return [];
      case 'BIT STRING':
        return this.sized(this.size(type.size, values), `${value}.length`, (fixed) =>
          fixed !== undefined && fixed <= 16 ? `w.bitString(${value});` : `w.alignedBitString(${value});`,
        );
      case 'OCTET STRING': {
        const size = this.size(type.size, values);
        if (size === undefined || size.ub >= K64) return [`w.generalOctets(${value});`];
        return this.sized(
          size,
          `${value}.length`,
          (fixed) =>
            fixed !== undefined && fixed <= 2 ? `w.octets(${value});` : `w.alignedOctets(${value});`,
          `w.generalOctets(${value});`,
        );
      }
      case 'OBJECT IDENTIFIER':
        return [`w.generalOctets(${value});`];
      case 'STRING': {
        if (type.stringType === 'UTF8String') return [`w.utf8(${value});`];
        const width = this.charWidth(type.stringType);
        return this.sized(
          this.size(type.size, values),
          `${value}.length`,
          (fixed) => `w.chars(${value}, ${width}, ${fixed === undefined || fixed * width > 16});`,
        );
      }
      case 'REF':
        return [`encode${this.refUnit(type, values, unit.sets)}(w, ${value});`];
      case 'FIELD':
        return this.encode(this.fieldType(type), unit, hint, value);
      default:
        return [`encode${this.unit(hint, type, values, unit.sets, undefined)}(w, ${value});`];
    }
  }

  /**
   * A length-prefixed encoding under a SIZE constraint: nothing for a fixed size, a constrained whole
   * number below 64K, a general length otherwise; an extensible size adds its bit (X.691 10.9, 16, 17).
   * `general` replaces length + body outside the root when the body writes its own general length.
   */
  private sized(
    size: Size | undefined,
    length: string,
    body: (fixed: number | undefined) => string,
    general?: string,
  ): string[] {
    if (size === undefined || size.ub >= K64)
      return general !== undefined ? [general] : [`w.generalLength(${length});`, body(undefined)];
    const root =
      size.lb === size.ub
        ? [`w.size(${length}, ${size.lb}, ${size.ub});`, body(size.ub)]
        : [this.intEncode(length, size.lb, size.ub), body(undefined)];
    if (!size.extensible) return root;
    const outside = general !== undefined ? [general] : [`w.generalLength(${length});`, body(undefined)];
    return [
      `if (${length} >= ${size.lb} && ${length} <= ${size.ub}) {`,
      'w.bit(false);',
      ...root,
      '} else {',
      'w.bit(true);',
      ...outside,
      '}',
    ];
  }

  private view(type: Type, unit: Unit, hint: string, value: string): string {
    switch (type.kind) {
      case 'INTEGER':
      case 'BOOLEAN':
      case 'NULL':
      case 'STRING':
        return value;
      case 'BIT STRING':
        return `bitStringHex(${value})`;
      case 'OBJECT IDENTIFIER':
        return `toHex(${value})`;
      case 'OCTET STRING': {
        if (type.containing === undefined) return `toHex(${value})`;
        const inner = this.tsType(type.containing, unit, `${hint}_containing`);
        return `viewContaining(${value}, ${this.options.aligned}, decode${inner}, view${inner}, hooks)`;
      }
      case 'REF':
        return `view${this.refUnit(type, unit.values, unit.sets)}(${value}, hooks)`;
      case 'FIELD':
        return this.view(this.fieldType(type), unit, hint, value);
      default:
        return `view${this.unit(hint, type, unit.values, unit.sets, undefined)}(${value}, hooks)`;
    }
  }

  // ---- one unit ----------------------------------------------------------------------------------

  private emit(unit: Unit): void {
    const { name, type } = unit;
    const special = unit.asn1 !== undefined ? this.options.views?.[unit.asn1] : undefined;
    switch (type.kind) {
      case 'SEQUENCE':
        if (this.tableComponents(type.root) !== undefined) this.emitTable(unit, type.root);
        else this.emitSequence(unit, type.root, type.additions);
        break;
      case 'CHOICE':
        this.emitChoice(unit, type.root, type.additions);
        break;
      case 'SEQUENCE OF':
        this.emitSequenceOf(unit, type);
        break;
      case 'ENUMERATED':
        this.emitEnumerated(unit, type.root, type.additions);
        break;
      default: {
        const key = unit.asn1 !== undefined && this.options.keyMaterial?.includes(unit.asn1) === true;
        if (key) this.checkKeyMaterial(unit);
        this.typesOut.push(`export type ${name} = ${this.tsType(type, unit, `${name}_value`)};`);
        const decode = this.decode(type, unit, `${name}_value`);
        this.decodersOut.push(
          `export function decode${name}(r: PerReader): ${name} {`,
          `return ${key ? `r.keyMaterial(${quote(unit.asn1!)}, () => ${decode})` : decode};`,
          '}',
        );
        const body = this.encode(type, unit, `${name}_value`, 'v');
        this.encodersOut.push(
          `export function encode${name}(w: PerWriter, v: ${name}): void {`,
          ...body,
          '}',
        );
        this.viewsOut.push(
          `export function view${name}(v: ${name}, hooks: ViewHooks): unknown {`,
          `return ${key ? 'redactedView()' : special !== undefined ? this.special(special) : this.view(type, unit, `${name}_value`, 'v')};`,
          '}',
        );
        return;
      }
    }
    if (special !== undefined) throw new Error(`generator: a special view for structured type ${unit.asn1}`);
  }

  /**
   * Zeroing key material in place keeps a PDU decodable only when no length determinant precedes it:
   * a fixed-size BIT or OCTET STRING (X.691 16.9, 17.6).
   */
  private checkKeyMaterial(unit: Unit): void {
    const { type } = unit;
    const size =
      type.kind === 'BIT STRING' || type.kind === 'OCTET STRING'
        ? this.size(type.size, unit.values)
        : undefined;
    if (size === undefined || size.lb !== size.ub || size.extensible)
      throw new Error(`generator: key material ${unit.asn1} is not a fixed-size BIT or OCTET STRING`);
  }

  private special(helper: string): string {
    this.viewHelpersUsed.add(helper);
    return `${helper}(v, hooks)`;
  }

  private emitEnumerated(unit: Unit, root: NamedNumber[], additions: NamedNumber[] | undefined): void {
    const { name } = unit;
    const sorted = root.every((item) => item.value !== undefined)
      ? [...root].sort((a, b) => a.value! - b.value!)
      : root;
    const names = [...sorted, ...(additions ?? [])].map((item) => item.name);
    const literal = names.map(quote).join(' | ');
    this.typesOut.push(`export type ${name} = ${literal}${additions !== undefined ? ' | number' : ''};`);
    this.constsOut.push(`const ${name}_NAMES: readonly string[] = [${names.map(quote).join(', ')}];`);
    this.constsOut.push(`const ${name}_INDEX = indexOf(${name}_NAMES);`);
    const n = sorted.length;
    const rootDecode = `${name}_NAMES[${this.intDecode(0, n - 1)}] as ${name}`;
    this.decodersOut.push(`export function decode${name}(r: PerReader): ${name} {`);
    if (additions === undefined) this.decodersOut.push(`return ${rootDecode};`);
    else
      this.decodersOut.push(
        `if (r.bit()) return enumeratedAddition(r, ${name}_NAMES, ${n}) as ${name};`,
        `return ${rootDecode};`,
      );
    this.decodersOut.push('}');
    this.encodersOut.push(
      `export function encode${name}(w: PerWriter, v: ${name}): void {`,
      `const index = enumeratedIndex(${name}_INDEX, v, ${n});`,
    );
    if (additions === undefined && n === 1)
      this.encodersOut[this.encodersOut.length - 1] = `enumeratedIndex(${name}_INDEX, v, 1);`;
    else if (additions === undefined) this.encodersOut.push(this.intEncode('index', 0, n - 1));
    else
      this.encodersOut.push(
        `if (index < ${n}) {`,
        'w.bit(false);',
        this.intEncode('index', 0, n - 1),
        '} else {',
        'w.bit(true);',
        `w.normallySmall(index - ${n});`,
        '}',
      );
    this.encodersOut.push('}');
    const criticality = unit.asn1 === 'Criticality';
    this.viewsOut.push(
      `export function view${name}(v: ${name}, hooks: ViewHooks): unknown {`,
      criticality ? `return enumeratedLabel(v, ${name}_INDEX);` : 'return v;',
      '}',
    );
    if (criticality) this.codecExports.add(`${name}_INDEX`);
  }

  private emitSequenceOf(unit: Unit, type: Extract<Type, { kind: 'SEQUENCE OF' }>): void {
    const { name } = unit;
    const hint = `${name}_item`;
    const item = this.tsType(type.item, unit, hint);
    this.typesOut.push(`export type ${name} = ${item}[];`);
    const size = this.size(type.size, unit.values);
    const count =
      size !== undefined && size.lb === size.ub && !size.extensible && size.ub < K64
        ? String(size.ub)
        : this.lengthDecode(size, 'r.count()');
    this.decodersOut.push(
      `export function decode${name}(r: PerReader): ${name} {`,
      `const n = ${count};`,
      `const v: ${name} = [];`,
      `for (let i = 0; i < n; i++) v.push(${this.decode(type.item, unit, hint)});`,
      'return v;',
      '}',
    );
    const general = size === undefined || size.ub >= K64;
    this.encodersOut.push(
      `export function encode${name}(w: PerWriter, v: ${name}): void {`,
      ...(general ? ['w.generalLength(v.length);'] : this.sized(size, 'v.length', () => '')).filter(
        (l) => l !== '',
      ),
      `for (const item of v) {`,
      ...this.encode(type.item, unit, hint, 'item'),
      '}',
      '}',
    );
    this.viewsOut.push(
      `export function view${name}(v: ${name}, hooks: ViewHooks): unknown {`,
      `return v.map((item) => ${this.view(type.item, unit, hint, 'item')});`,
      '}',
    );
  }

  private emitChoice(unit: Unit, root: Component[], additions: Component[] | undefined): void {
    const { name } = unit;
    const alternatives = [...root, ...(additions ?? [])];
    const members = alternatives.map(
      (alt) =>
        `{ choice: ${quote(alt.name)}; value: ${this.tsType(alt.type, unit, this.hint(name, alt.name))} }`,
    );
    if (additions !== undefined) members.push('{ choice: null; index: number; value: Uint8Array }');
    this.typesOut.push(`export type ${name} =`, ...members.map((m) => `| ${m}`), ';');

    const dec: string[] = [`export function decode${name}(r: PerReader): ${name} {`];
    if (additions !== undefined) {
      dec.push('if (r.bit()) {', 'const index = r.normallySmall();', 'const o = r.openType();');
      if (additions.length > 0) {
        dec.push('switch (index) {');
        additions.forEach((alt, k) => {
          dec.push(
            `case ${k}:`,
            `return { choice: ${quote(alt.name)}, value: ${this.onReader(this.decode(alt.type, unit, this.hint(name, alt.name)), 'o')} };`,
          );
        });
        dec.push('}');
      }
      dec.push('return { choice: null, index, value: o.rest() };', '}');
    }
    if (root.length === 1)
      dec.push(
        `return { choice: ${quote(root[0]!.name)}, value: ${this.decode(root[0]!.type, unit, this.hint(name, root[0]!.name))} };`,
      );
    else {
      dec.push(`switch (${this.intDecode(0, root.length - 1)}) {`);
      root.forEach((alt, k) => {
        dec.push(
          k === root.length - 1 ? 'default:' : `case ${k}:`,
          `return { choice: ${quote(alt.name)}, value: ${this.decode(alt.type, unit, this.hint(name, alt.name))} };`,
        );
      });
      dec.push('}');
    }
    dec.push('}');
    this.decodersOut.push(...dec);

    const enc: string[] = [
      `export function encode${name}(w: PerWriter, v: ${name}): void {`,
      'switch (v.choice) {',
    ];
    root.forEach((alt, k) => {
      enc.push(`case ${quote(alt.name)}:`);
      if (additions !== undefined) enc.push('w.bit(false);');
      enc.push(this.intEncode(String(k), 0, root.length - 1));
      enc.push(...this.encode(alt.type, unit, this.hint(name, alt.name), 'v.value'), 'break;');
    });
    (additions ?? []).forEach((alt, k) => {
      enc.push(
        `case ${quote(alt.name)}: {`,
        'w.bit(true);',
        `w.normallySmall(${k});`,
        'const c = w.child();',
      );
      enc.push(
        ...this.encode(alt.type, unit, this.hint(name, alt.name), 'v.value').map((l) => this.onWriter(l)),
      );
      enc.push('w.openType(c);', 'break;', '}');
    });
    if (additions !== undefined)
      enc.push(
        'case null:',
        'w.bit(true);',
        'w.normallySmall(v.index);',
        'w.generalOctets(v.value);',
        'break;',
      );
    enc.push('}', '}');
    this.encodersOut.push(...enc.filter((l) => l !== ''));

    const views = alternatives.map((alt) => {
      const body = this.view(alt.type, unit, this.hint(name, alt.name), 'v.value');
      return [`case ${quote(alt.name)}:`, `return { ${snakeCase(alt.name)}: ${body} };`];
    });
    const viewLines = [`export function view${name}(v: ${name}, hooks: ViewHooks): unknown {`];
    const all = views.flat();
    viewLines.push('switch (v.choice) {', ...all);
    if (additions !== undefined) viewLines.push('case null:', 'return { raw: toHex(v.value) };');
    viewLines.push('}', '}');
    this.viewsOut.push(...viewLines);
  }

  private hint(parent: string, component: string): string {
    return `${parent}_${typeName(propertyName(component))}`;
  }

  private emitSequence(unit: Unit, root: Component[], additions: Addition[] | undefined): void {
    const { name } = unit;
    const extensible = additions !== undefined;
    const addedComponents = (additions ?? []).flatMap((a) => (a.group ? a.components : [a.component]));
    const fields = [...root, ...addedComponents];
    const props = fields.map((c) => {
      const optional = c.optional || c.hasDefault || addedComponents.includes(c);
      return `${propertyName(c.name)}${optional ? '?' : ''}: ${this.tsType(c.type, unit, this.hint(name, c.name))};`;
    });
    if (fields.some((c) => propertyName(c.name) === 'unknownExtensions'))
      throw new Error(`generator: ${name} has a component named unknownExtensions`);
    if (extensible) props.push('unknownExtensions?: (Uint8Array | undefined)[];');
    if (props.length === 0) this.typesOut.push(`export type ${name} = Record<string, never>;`);
    else this.typesOut.push(`export interface ${name} {`, ...props, '}');

    // Decoder (X.691 19): extension bit, presence bitmap of the root's OPTIONAL/DEFAULT components,
    // the root, then the extension additions, each an open type ([[ ]] groups as SEQUENCEs).
    const dec: string[] = [`export function decode${name}(r: PerReader): ${name} {`];
    if (extensible) dec.push('const extended = r.bit();');
    dec.push(...this.presenceDecode(root, 'p'));
    const literal = root.map((c, i) => {
      const expr = this.decode(c.type, unit, this.hint(name, c.name));
      return `${propertyName(c.name)}: ${this.isOptional(c) ? `p${i} ? ${expr} : undefined` : expr},`;
    });
    dec.push(`const v: ${name} = {`, ...literal, '};');
    if (extensible) {
      dec.push('if (extended) {', 'const present = r.extensionBitmap();');
      (additions ?? []).forEach((addition, k) => {
        if (!addition.group) {
          const c = addition.component;
          const expr = this.decode(c.type, unit, this.hint(name, c.name));
          dec.push(
            `if (present[${k}]) {`,
            'const o = r.openType();',
            `v.${propertyName(c.name)} = ${this.onReader(expr, 'o')};`,
            '}',
          );
        } else {
          dec.push(
            `if (present[${k}]) {`,
            'const g = r.openType();',
            ...this.presenceDecode(addition.components, `g${k}_`, 'g'),
          );
          addition.components.forEach((c, i) => {
            const expr = this.onReader(this.decode(c.type, unit, this.hint(name, c.name)), 'g');
            dec.push(
              this.isOptional(c)
                ? `if (g${k}_${i}) v.${propertyName(c.name)} = ${expr};`
                : `v.${propertyName(c.name)} = ${expr};`,
            );
          });
          dec.push('}');
        }
      });
      dec.push(`v.unknownExtensions = r.unknownExtensions(present, ${(additions ?? []).length});`, '}');
    }
    dec.push('return v;', '}');
    this.decodersOut.push(...dec);

    const enc: string[] = [`export function encode${name}(w: PerWriter, v: ${name}): void {`];
    const additionPresent = (additions ?? []).map((a) =>
      (a.group ? a.components : [a.component])
        .map((c) => `v.${propertyName(c.name)} !== undefined`)
        .join(' || '),
    );
    if (extensible) {
      enc.push(
        `const extended = ${[...additionPresent, 'v.unknownExtensions !== undefined'].join(' || ')};`,
        'w.bit(extended);',
      );
    }
    for (const c of root) if (this.isOptional(c)) enc.push(`w.bit(v.${propertyName(c.name)} !== undefined);`);
    for (const c of root) {
      const value = `v.${propertyName(c.name)}`;
      const body = this.encode(c.type, unit, this.hint(name, c.name), value);
      if (this.isOptional(c) && body.length > 0) enc.push(`if (${value} !== undefined) {`, ...body, '}');
      else enc.push(...body);
    }
    if (extensible) {
      enc.push('if (extended) {', 'const unknown = v.unknownExtensions ?? [];');
      enc.push(
        `w.extensionBitmap([${[...additionPresent, '...unknown.map((raw) => raw !== undefined)'].join(', ')}]);`,
      );
      (additions ?? []).forEach((addition, k) => {
        const components = addition.group ? addition.components : [addition.component];
        enc.push(`if (${additionPresent[k]}) {`, 'const c = w.child();');
        if (addition.group)
          for (const c of components)
            if (this.isOptional(c)) enc.push(`c.bit(v.${propertyName(c.name)} !== undefined);`);
        for (const c of components) {
          const value = `v.${propertyName(c.name)}`;
          const body = this.encode(c.type, unit, this.hint(name, c.name), value).map((l) => this.onWriter(l));
          if (!addition.group || this.isOptional(c)) {
            if (body.length > 0) enc.push(`if (${value} !== undefined) {`, ...body, '}');
          } else
            enc.push(
              `if (${value} === undefined) throw new PerError('${name}: ${c.name} missing from its extension group');`,
              ...body,
            );
        }
        enc.push('w.openType(c);', '}');
      });
      enc.push('for (const raw of unknown) if (raw !== undefined) w.generalOctets(raw);', '}');
    }
    enc.push('}');
    this.encodersOut.push(...enc);

    const entries = fields.map((c) => {
      const value = `v.${propertyName(c.name)}`;
      const body = this.view(c.type, unit, this.hint(name, c.name), value);
      const key = c.name === 'protocolIEs' ? 'ies' : snakeCase(c.name);
      const optional = this.isOptional(c) || addedComponents.includes(c);
      const shown = this.choiceNamedLike(c.type, key) ? `unwrapChoice(${body}, ${quote(key)})` : body;
      return `${key}: ${optional ? `${value} === undefined ? undefined : ${shown}` : shown},`;
    });
    if (extensible) entries.push('unknown_extensions: viewUnknownExtensions(v.unknownExtensions),');
    const viewLines = [`export function view${name}(v: ${name}, hooks: ViewHooks): unknown {`];
    if (entries.length === 0) viewLines.push('return {};');
    else viewLines.push('return {', ...entries, '};');
    viewLines.push('}');
    this.viewsOut.push(...viewLines);
  }

  /**
   * Whether a component's type is a CHOICE with an alternative of the component's own name (`gNB-ID
   * GNB-ID` holding `gNB-ID BIT STRING`): the view shows that alternative's value directly, as
   * network.md section 3 shows `"gnb_id": "000001"`.
   */
  private choiceNamedLike(type: Type, key: string): boolean {
    let resolved = type;
    for (let hops = 0; resolved.kind === 'REF' && hops < 8; hops++) {
      const assignment = this.schema.types.get(resolved.name);
      if (assignment === undefined || assignment.params !== undefined) return false;
      resolved = assignment.type;
    }
    return resolved.kind === 'CHOICE' && resolved.root.some((alt) => snakeCase(alt.name) === key);
  }

  private isOptional(c: Component): boolean {
    return c.optional || c.hasDefault;
  }

  private presenceDecode(components: Component[], prefix: string, reader = 'r'): string[] {
    const lines: string[] = [];
    components.forEach((c, i) => {
      if (this.isOptional(c)) lines.push(`const ${prefix}${i} = ${reader}.bit();`);
    });
    return lines;
  }

  /** Rewrites an encode statement on `w` to write into the open-type child writer `c`. */
  private onWriter(line: string): string {
    return line.replace(/\bw\./g, 'c.').replace(/\(w, /g, '(c, ');
  }

  /** Rewrites a decode expression on `r` to read from another reader. */
  private onReader(expr: string, reader: string): string {
    return expr.replace(/\br\./g, `${reader}.`).replace(/\(r\)/g, `(${reader})`);
  }

  /**
   * The components of an information-object-table-constrained SEQUENCE (X.682 10: `&id ({Set})` and
   * `&Value ({Set}{@id})`), or undefined for an ordinary SEQUENCE.
   */
  private tableComponents(root: Component[]): { key: Component; set: string } | undefined {
    for (const c of root) {
      if (c.type.kind !== 'FIELD' || c.type.at === undefined) continue;
      const at = c.type.at;
      const key = root.find((k) => k.name === at);
      if (key === undefined || key.type.kind !== 'FIELD' || key.type.set === undefined)
        throw new Error(`generator: @${c.type.at} names no table-constrained component`);
      return { key, set: key.type.set };
    }
    return undefined;
  }

  /**
   * A SEQUENCE of the protocol IE container kind: a key (`id`, `procedureCode`), fixed-type fields
   * (`criticality`) and open types whose type the key selects from an object set. It becomes a union
   * with one member per object plus one for keys outside the set, whose open types stay raw octets.
   */
  private emitTable(unit: Unit, root: Component[]): void {
    const { name } = unit;
    const table = this.tableComponents(root)!;
    const setName = unit.sets.get(table.set) ?? table.set;
    const keyType = table.key.type as Extract<Type, { kind: 'FIELD' }>;
    const keyField = keyType.field;
    const openComponents = root.filter(
      (c) => c.type.kind === 'FIELD' && c.type.at !== undefined && /^&[A-Z]/.test(c.type.field),
    );
    const objects = this.schema
      .objectsOf(setName)
      .filter((o) => openComponents.every((c) => o.types.has((c.type as { field: string }).field)));
    const members: { key: number; label: string; object: InfoObject }[] = [];
    const seen = new Set<number>();
    for (const object of objects) {
      const keyValue = object.values.get(keyField);
      if (keyValue === undefined) continue;
      const key = this.num(keyValue, unit.values);
      if (seen.has(key)) continue;
      seen.add(key);
      const label = typeof keyValue === 'string' ? keyValue.replace(/^id-/, '') : String(keyValue);
      members.push({ key, label, object });
    }
    const keyProp = propertyName(table.key.name);
    const fixed = root.filter((c) => !openComponents.includes(c) && c !== table.key);
    const fixedProps = fixed.map(
      (c) => `${propertyName(c.name)}: ${this.tsType(c.type, unit, this.hint(name, c.name))}`,
    );
    const openType = (c: Component, m: { label: string; object: InfoObject }): Type =>
      m.object.types.get((c.type as { field: string }).field)!;
    const openHint = (c: Component, m: { label: string }): string =>
      `${name}_${typeName(m.label)}_${typeName(propertyName(c.name))}`;

    const unionMembers = members.map((m) => {
      const parts = [
        `${keyProp}: ${m.key}`,
        `name: ${quote(m.label)}`,
        ...fixedProps,
        ...openComponents.map(
          (c) => `${propertyName(c.name)}: ${this.tsType(openType(c, m), unit, openHint(c, m))}`,
        ),
      ];
      return `{ ${parts.join('; ')} }`;
    });
    const keyTs = this.tsType(keyType, unit, this.hint(name, table.key.name));
    unionMembers.push(
      `{ ${[`${keyProp}: ${keyTs}`, 'name: null', ...fixedProps, ...openComponents.map((c) => `${propertyName(c.name)}: Uint8Array`)].join('; ')} }`,
    );
    this.typesOut.push(`export type ${name} =`, ...unionMembers.map((m) => `| ${m}`), ';');

    const dec: string[] = [`export function decode${name}(r: PerReader): ${name} {`];
    for (const c of root) {
      const local = propertyName(c.name);
      if (openComponents.includes(c)) dec.push(`const ${local} = r.openType();`);
      else dec.push(`const ${local} = ${this.decode(c.type, unit, this.hint(name, c.name))};`);
    }
    const fixedLocals = fixed.map((c) => propertyName(c.name));
    const build = (head: string, opens: string[]): string =>
      `return { ${[head, ...fixedLocals, ...opens].join(', ')} };`;
    if (members.length > 0) {
      dec.push(`switch (${keyProp}) {`);
      for (const m of members) {
        dec.push(
          `case ${m.key}:`,
          build(
            `${keyProp}: ${m.key}, name: ${quote(m.label)}`,
            openComponents.map(
              (c) =>
                `${propertyName(c.name)}: ${this.onReader(this.decode(openType(c, m), unit, openHint(c, m)), propertyName(c.name))}`,
            ),
          ),
        );
      }
      dec.push('}');
    }
    dec.push(
      build(
        `${keyProp}, name: null`,
        openComponents.map((c) => `${propertyName(c.name)}: ${propertyName(c.name)}.rest()`),
      ),
      '}',
    );
    this.decodersOut.push(...dec);

    const enc: string[] = [`export function encode${name}(w: PerWriter, v: ${name}): void {`];
    for (const c of root) {
      const prop = propertyName(c.name);
      if (!openComponents.includes(c)) {
        enc.push(...this.encode(c.type, unit, this.hint(name, c.name), `v.${prop}`));
        continue;
      }
      enc.push('switch (v.name) {');
      for (const m of members) {
        enc.push(`case ${quote(m.label)}: {`, 'const c = w.child();');
        enc.push(
          ...this.encode(openType(c, m), unit, openHint(c, m), `v.${prop}`).map((l) => this.onWriter(l)),
        );
        enc.push('w.openType(c);', 'break;', '}');
      }
      enc.push('case null:', `w.generalOctets(v.${prop});`, 'break;', '}');
    }
    enc.push('}');
    this.encodersOut.push(...enc);

    // View (network.md section 3): the key as `<name> (<n>)` (a procedure code as its name alone). An
    // elementary procedure's message sits under `value`, keyed by its type (`ng_setup_request`); an IE's
    // or extension's value is keyed by the IE's own name, so that two IEs of one type stay apart
    // (`NewAMF-UE-NGAP-ID` and `AMF-UE-NGAP-ID` -> `new_amf_ue_ngap_id`, `amf_ue_ngap_id`).
    const procedure = keyField === '&procedureCode';
    if (!procedure && openComponents.length > 1)
      throw new Error(`generator: ${name} has ${openComponents.length} open types under one IE name`);
    if (procedure) {
      const entries = members.map((m) => {
        const type = openType(openComponents[0]!, m);
        return `[${m.key}, ${quote(type.kind === 'REF' ? type.name : m.label)}]`;
      });
      this.constsOut.push(
        `const ${name}_MESSAGES: ReadonlyMap<number, string> = new Map([${entries.join(', ')}]);`,
      );
      this.codecExports.add(`${name}_MESSAGES`);
    }
    const viewLines = [`export function view${name}(v: ${name}, hooks: ViewHooks): unknown {`];
    const fixedViews = fixed.map(
      (c) =>
        `${snakeCase(c.name)}: ${this.view(c.type, unit, this.hint(name, c.name), `v.${propertyName(c.name)}`)}`,
    );
    const keyKey = snakeCase(table.key.name);
    const cases: string[] = [];
    for (const m of members) {
      const opens = openComponents.map((c) => {
        const type = openType(c, m);
        const label = snakeCase(procedure && type.kind === 'REF' ? type.name : m.label);
        const body = `${label}: ${this.view(type, unit, openHint(c, m), `v.${propertyName(c.name)}`)}`;
        return procedure ? `${snakeCase(c.name)}: { ${body} }` : body;
      });
      const keyLabel = procedure ? quote(m.label) : quote(`${m.label} (${m.key})`);
      cases.push(
        `case ${quote(m.label)}:`,
        `return { ${[`${keyKey}: ${keyLabel}`, ...fixedViews, ...opens].join(', ')} };`,
      );
    }
    const unknownKey = procedure ? `v.${keyProp}` : `unknownKey(v.${keyProp})`;
    const rawOpens = openComponents.map((c) =>
      procedure
        ? `${snakeCase(c.name)}: { raw: toHex(v.${propertyName(c.name)}) }`
        : `raw: toHex(v.${propertyName(c.name)})`,
    );
    const unknownReturn = `return { ${[`${keyKey}: ${unknownKey}`, ...fixedViews, ...rawOpens].join(', ')} };`;
    if (members.length > 0) viewLines.push('switch (v.name) {', ...cases, 'case null:', unknownReturn, '}');
    else viewLines.push(unknownReturn);
    viewLines.push('}');
    this.viewsOut.push(...viewLines);
  }

  // ---- files -------------------------------------------------------------------------------------

  private files(): GeneratedFiles {
    const header = [
      `// Generated by scripts/asn1-generate.ts from ${this.options.source}; do not edit.`,
      `// PER variant: ${this.options.aligned ? 'ALIGNED' : 'UNALIGNED'} (X.691).`,
      '',
    ];
    const typeNames = [...this.units.keys()].sort();
    const typesFile = [
      ...header,
      "import type { BitString } from '" + this.options.runtime + "/bit-string.ts';",
      '',
      ...this.typesOut,
    ];
    const codecText = [...this.constsOut, ...this.decodersOut, ...this.encodersOut].join('\n');
    const viewText = this.viewsOut.join('\n');
    const identifiers = (text: string): Set<string> => new Set(text.match(/[A-Za-z_][A-Za-z0-9_]*/g));
    const codecIds = identifiers(codecText);
    const viewIds = identifiers(viewText);
    const idsOf = (text: string): Set<string> => (text === codecText ? codecIds : viewIds);
    const used = (text: string): string[] => typeNames.filter((n) => idsOf(text).has(n));
    const runtimeImports = (text: string, names: string[]): string[] =>
      names.filter((n) => idsOf(text).has(n));
    const codecFile = [
      ...header,
      ...this.importLine(
        runtimeImports(codecText, ['BitString']),
        `${this.options.runtime}/bit-string.ts`,
        true,
      ),
      ...this.importLine(
        runtimeImports(codecText, ['enumeratedAddition', 'enumeratedIndex', 'indexOf']),
        `${this.options.runtime}/per-enumerated.ts`,
        false,
      ),
      ...this.importLine(
        runtimeImports(codecText, ['PerError']),
        `${this.options.runtime}/per-reader.ts`,
        false,
      ),
      ...this.importLine(['PerReader'], `${this.options.runtime}/per-reader.ts`, true),
      ...this.importLine(['PerWriter'], `${this.options.runtime}/per-writer.ts`, true),
      ...this.importLine(used(codecText), './types.ts', true),
      '',
      ...this.constsOut.map((l) =>
        [...this.codecExports].some((e) => new RegExp(`^const ${e}\\b`).test(l)) ? `export ${l}` : l,
      ),
      ...Generator.voidUnused(this.decodersOut),
      ...Generator.voidUnused(this.encodersOut),
    ];
    const decoders = typeNames.filter((n) => viewIds.has(`decode${n}`));
    const viewFile = [
      ...header,
      ...this.importLine(
        runtimeImports(viewText, ['bitStringHex']),
        `${this.options.runtime}/bit-string.ts`,
        false,
      ),
      ...this.importLine(runtimeImports(viewText, ['toHex']), `${this.options.runtime}/hex.ts`, false),
      ...this.importLine(
        runtimeImports(viewText, [
          'enumeratedLabel',
          'redactedView',
          'unknownKey',
          'unwrapChoice',
          'viewContaining',
          'viewUnknownExtensions',
        ]),
        `${this.options.runtime}/view.ts`,
        false,
      ),
      ...this.importLine(['ViewHooks'], this.options.viewHelpers ?? `${this.options.runtime}/view.ts`, true),
      ...this.importLine([...this.viewHelpersUsed].sort(), this.options.viewHelpers ?? '', false),
      ...this.importLine(
        [...decoders.map((n) => `decode${n}`), ...runtimeImports(viewText, [...this.codecExports])].sort(),
        './codec.ts',
        false,
      ),
      ...this.importLine(used(viewText), './types.ts', true),
      '',
      ...Generator.voidUnused(this.viewsOut),
    ];
    return {
      'types.ts': typesFile.join('\n') + '\n',
      'codec.ts': codecFile.join('\n') + '\n',
      'view.ts': viewFile.join('\n') + '\n',
    };
  }

  /**
   * Marks parameters a generated function does not read as used (`void r;`), so that every function
   * keeps the one signature of its kind (decode, encode, view) and the lint stays clean.
   */
  private static voidUnused(lines: string[]): string[] {
    const out: string[] = [];
    let start = 0;
    const flush = (end: number): void => {
      if (end <= start) return;
      const signature = lines[start]!;
      const body = lines.slice(start + 1, end).join('\n');
      out.push(signature);
      const params = /^export function \w+\(([^)]*)\)/.exec(signature)?.[1] ?? '';
      for (const param of params.split(',').map((p) => p.trim().split(':')[0]!)) {
        if (param !== '' && !new RegExp(`\\b${param}\\b`).test(body)) out.push(`void ${param};`);
      }
      out.push(...lines.slice(start + 1, end));
    };
    lines.forEach((line, index) => {
      if (line.startsWith('export function ') && index > start) {
        flush(index);
        start = index;
      }
    });
    flush(lines.length);
    return out;
  }

  private importLine(names: string[], from: string, typeOnly: boolean): string[] {
    if (names.length === 0) return [];
    return [`import ${typeOnly ? 'type ' : ''}{ ${names.join(', ')} } from '${from}';`];
  }
}
