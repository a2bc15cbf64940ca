import type { Module, ObjectClass, Parameter, Type, Value } from './model.ts';
import { parseType, parseValue } from './parser.ts';
import type { SyntaxToken } from './model.ts';

/** One information object: its fields' types (`&Value`) and values (`&id`), as written. */
export interface InfoObject {
  /** The reference the object was written under, when it has one (elementary procedures do). */
  name: string | undefined;
  types: Map<string, Type>;
  values: Map<string, Value>;
}

/** A protocol's modules merged into one name space, with values, classes and object sets resolved. */
export class Schema {
  readonly types = new Map<string, { params: Parameter[] | undefined; type: Type }>();
  readonly values = new Map<string, { type: Type; value: Value }>();
  readonly classes = new Map<string, ObjectClass>();
  private readonly objects = new Map<string, { className: string; body: string[] }>();
  private readonly objectSets = new Map<string, { className: string; body: string[] }>();

  constructor(modules: Module[]) {
    for (const module of modules) {
      merge(this.types, module.types, module.name);
      merge(this.values, module.values, module.name);
      merge(this.classes, module.classes, module.name);
      merge(this.objects, module.objects, module.name);
      merge(this.objectSets, module.objectSets, module.name);
    }
  }

  /** A value: a number, or a value assignment's number (`maxnoofTACs`, `id-NGSetup`). */
  number(value: Value, params?: ReadonlyMap<string, Value>): number {
    const seen = new Set<string>();
    let current = value;
    while (typeof current === 'string') {
      if (seen.has(current)) throw new Error(`ASN.1: circular value ${current}`);
      seen.add(current);
      const bound = params?.get(current);
      if (bound !== undefined) current = bound;
      else {
        const assigned = this.values.get(current);
        if (assigned === undefined) throw new Error(`ASN.1: unknown value ${current}`);
        current = assigned.value;
      }
    }
    return current;
  }

  /** The objects of an object set, nested sets and object references flattened, in textual order. */
  objectsOf(setName: string): InfoObject[] {
    const set = this.objectSets.get(setName);
    if (set === undefined) throw new Error(`ASN.1: unknown object set ${setName}`);
    const objectClass = this.classes.get(set.className);
    if (objectClass === undefined) throw new Error(`ASN.1: unknown class ${set.className}`);
    const out: InfoObject[] = [];
    for (const element of splitElements(set.body)) {
      if (element.length === 1 && element[0] === '...') continue;
      if (element[0] === '{') out.push(this.parseObject(objectClass, element.slice(1, -1), undefined));
      else if (element.length === 1) {
        const name = element[0]!;
        const object = this.objects.get(name);
        if (object !== undefined) {
          const cls = this.classes.get(object.className);
          if (cls === undefined) throw new Error(`ASN.1: unknown class ${object.className}`);
          out.push(this.parseObject(cls, object.body, name));
        } else out.push(...this.objectsOf(name));
      } else throw new Error(`ASN.1: object set element ${element.join(' ')} not understood`);
    }
    return out;
  }

  /** Reads an object's `{ ... }` body through its class's WITH SYNTAX (X.681 10.10). */
  private parseObject(objectClass: ObjectClass, tokens: string[], name: string | undefined): InfoObject {
    const object: InfoObject = { name, types: new Map(), values: new Map() };
    const typeFields = new Set(objectClass.fields.filter((f) => f.type === undefined).map((f) => f.name));
    const match = (syntax: SyntaxToken[], start: number): number => {
      let pos = start;
      for (const token of syntax) {
        if (token.kind === 'word') {
          if (tokens[pos] !== token.word)
            throw new Error(`ASN.1: object syntax expected ${token.word}, got ${tokens[pos]}`);
          pos++;
        } else if (token.kind === 'field') {
          const rest = tokens.slice(pos);
          if (typeFields.has(token.field)) {
            const { type, consumed } = parseType(rest);
            object.types.set(token.field, type);
            pos += consumed;
          } else {
            const { value, consumed } = parseValue(rest);
            object.values.set(token.field, value);
            pos += consumed;
          }
        } else {
          const first = token.tokens[0];
          if (first?.kind === 'word' && tokens[pos] === first.word) pos = match(token.tokens, pos);
        }
      }
      return pos;
    };
    const end = match(objectClass.syntax, 0);
    if (end !== tokens.length) throw new Error(`ASN.1: object syntax left ${tokens.slice(end).join(' ')}`);
    return object;
  }
}

function merge<V>(into: Map<string, V>, from: Map<string, V>, module: string): void {
  for (const [name, value] of from) {
    if (into.has(name)) throw new Error(`ASN.1: ${name} defined twice (again in ${module})`);
    into.set(name, value);
  }
}

/** Splits an object set body at top-level `|` and `,`. */
function splitElements(body: string[]): string[][] {
  const elements: string[][] = [];
  let current: string[] = [];
  let depth = 0;
  for (const token of body) {
    if (depth === 0 && (token === '|' || token === ',')) {
      if (current.length > 0) elements.push(current);
      current = [];
      continue;
    }
    if (token === '{') depth++;
    else if (token === '}') depth--;
    current.push(token);
  }
  if (current.length > 0) elements.push(current);
  return elements;
}
