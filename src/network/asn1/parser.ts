import type {
  Actual,
  Addition,
  ClassField,
  Component,
  Module,
  NamedNumber,
  ObjectClass,
  Parameter,
  Range,
  SyntaxToken,
  Type,
  Value,
} from './model.ts';

const STRING_TYPES = new Set([
  'PrintableString',
  'VisibleString',
  'IA5String',
  'NumericString',
  'UTF8String',
  'UTCTime',
  'GeneralizedTime',
]);

/** Splits ASN.1 text into tokens; comments (`--` to the next `--` or the line end) are dropped. */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const pattern =
    /\s+|--.*?(?:--|$)|::=|\.\.\.|\.\.|\[\[|\]\]|-?\d+|&?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*|[{}()[\],|.@;:!<>^]/my;
  let index = 0;
  while (index < text.length) {
    pattern.lastIndex = index;
    const match = pattern.exec(text);
    if (match === null)
      throw new Error(`ASN.1: unexpected character ${JSON.stringify(text[index])} at ${index}`);
    const token = match[0];
    index += token.length;
    if (/^\s/.test(token) || token.startsWith('--')) continue;
    tokens.push(token);
  }
  return tokens;
}

class Parser {
  private i = 0;

  constructor(private readonly tokens: string[]) {}

  get consumed(): number {
    return this.i;
  }

  private peek(offset = 0): string | undefined {
    return this.tokens[this.i + offset];
  }

  private next(): string {
    const token = this.tokens[this.i++];
    if (token === undefined) throw new Error('ASN.1: unexpected end of input');
    return token;
  }

  private expect(wanted: string): void {
    const token = this.next();
    if (token !== wanted) throw new Error(`ASN.1: expected ${wanted}, got ${token} (${this.context()})`);
  }

  private accept(wanted: string): boolean {
    if (this.peek() !== wanted) return false;
    this.i++;
    return true;
  }

  private context(): string {
    return this.tokens.slice(Math.max(0, this.i - 8), this.i + 4).join(' ');
  }

  /** The tokens of a balanced `{ ... }` block, without its outer braces. */
  private block(): string[] {
    this.expect('{');
    const start = this.i;
    let depth = 1;
    while (depth > 0) {
      const token = this.next();
      if (token === '{') depth++;
      else if (token === '}') depth--;
    }
    return this.tokens.slice(start, this.i - 1);
  }

  module(): Module {
    const name = this.next();
    if (this.peek() === '{') this.block();
    this.expect('DEFINITIONS');
    while (this.peek() !== '::=') this.next();
    this.expect('::=');
    this.expect('BEGIN');
    const module: Module = {
      name,
      types: new Map(),
      values: new Map(),
      classes: new Map(),
      objects: new Map(),
      objectSets: new Map(),
    };
    if (this.accept('IMPORTS')) while (this.next() !== ';');
    while (!this.accept('END')) this.assignment(module);
    return module;
  }

  private assignment(module: Module): void {
    const name = this.next();
    if (this.peek() === '::=') {
      this.next();
      if (this.accept('CLASS')) module.classes.set(name, this.objectClass());
      else module.types.set(name, { params: undefined, type: this.type() });
      return;
    }
    if (this.peek() === '{') {
      const params = this.parameters();
      this.expect('::=');
      module.types.set(name, { params, type: this.type() });
      return;
    }
    const governor = this.next();
    this.expect('::=');
    const isClass = /^[A-Z][A-Z0-9-]*$/.test(governor) && governor.includes('-') && this.peek() === '{';
    if (isClass && /^[A-Z]/.test(name))
      module.objectSets.set(name, { className: governor, body: this.block() });
    else if (isClass) module.objects.set(name, { className: governor, body: this.block() });
    else module.values.set(name, { type: this.typeNamed(governor), value: this.value() });
  }

  private parameters(): Parameter[] {
    const params: Parameter[] = [];
    this.expect('{');
    do {
      const governor = this.next();
      this.expect(':');
      params.push({ governor, name: this.next() });
    } while (this.accept(','));
    this.expect('}');
    return params;
  }

  private objectClass(): ObjectClass {
    const fields: ClassField[] = [];
    this.expect('{');
    do {
      const name = this.next();
      let type: Type | undefined;
      if (!name.startsWith('&')) throw new Error(`ASN.1: class field expected, got ${name}`);
      const peek = this.peek();
      if (peek !== ',' && peek !== '}' && peek !== 'OPTIONAL' && peek !== 'DEFAULT' && peek !== 'UNIQUE')
        type = this.type();
      let optional = false;
      for (;;) {
        if (this.accept('UNIQUE')) continue;
        if (this.accept('OPTIONAL')) optional = true;
        else if (this.accept('DEFAULT')) {
          this.value();
          optional = true;
        } else break;
      }
      fields.push({ name, type, optional });
    } while (this.accept(','));
    this.expect('}');
    this.expect('WITH');
    this.expect('SYNTAX');
    return { fields, syntax: syntaxTokens(this.block()) };
  }

  value(): Value {
    const token = this.next();
    return /^-?\d+$/.test(token) ? Number(token) : token;
  }

  type(): Type {
    const token = this.next();
    return this.typeNamed(token);
  }

  private typeNamed(token: string): Type {
    let type: Type;
    switch (token) {
      case 'INTEGER': {
        if (this.peek() === '{') this.block();
        type = { kind: 'INTEGER', range: undefined };
        break;
      }
      case 'BOOLEAN':
        type = { kind: 'BOOLEAN' };
        break;
      case 'NULL':
        type = { kind: 'NULL' };
        break;
      case 'ENUMERATED':
        type = this.enumerated();
        break;
      case 'BIT':
        this.expect('STRING');
        if (this.peek() === '{') this.block();
        type = { kind: 'BIT STRING', size: undefined };
        break;
      case 'OCTET':
        this.expect('STRING');
        type = { kind: 'OCTET STRING', size: undefined, containing: undefined };
        break;
      case 'OBJECT':
        this.expect('IDENTIFIER');
        type = { kind: 'OBJECT IDENTIFIER' };
        break;
      case 'SEQUENCE':
        type = this.sequenceOrSequenceOf();
        break;
      case 'CHOICE':
        type = this.choice();
        break;
      default:
        if (STRING_TYPES.has(token)) type = { kind: 'STRING', stringType: token, size: undefined };
        else if (this.peek() === '.' && this.peek(1)?.startsWith('&')) {
          this.next();
          return this.fieldType(token, this.next());
        } else type = { kind: 'REF', name: token, args: this.peek() === '{' ? this.actuals() : undefined };
    }
    while (this.peek() === '(') this.constrain(type);
    return type;
  }

  private fieldType(className: string, field: string): Type {
    let set: string | undefined;
    let at: string | undefined;
    if (this.accept('(')) {
      this.expect('{');
      set = this.next();
      this.expect('}');
      if (this.accept('{')) {
        this.expect('@');
        at = this.next();
        this.expect('}');
      }
      this.expect(')');
    }
    return { kind: 'FIELD', className, field, set, at };
  }

  private actuals(): Actual[] {
    const actuals: Actual[] = [];
    this.expect('{');
    if (this.accept('}')) return actuals;
    do {
      if (this.accept('{')) {
        actuals.push({ kind: 'set', name: this.next() });
        this.expect('}');
      } else actuals.push({ kind: 'value', value: this.value() });
    } while (this.accept(','));
    this.expect('}');
    return actuals;
  }

  /** A parenthesised constraint applied to `type`; only PER-visible parts are kept (X.691 9.3). */
  private constrain(type: Type): void {
    this.expect('(');
    if (this.accept('SIZE')) {
      const size = this.parenthesisedRange();
      if (type.kind === 'BIT STRING' || type.kind === 'OCTET STRING' || type.kind === 'STRING')
        type.size = size;
      else if (type.kind === 'SEQUENCE OF') type.size = size;
      else throw new Error(`ASN.1: SIZE on ${type.kind} (${this.context()})`);
    } else if (this.accept('CONTAINING')) {
      if (type.kind !== 'OCTET STRING') throw new Error(`ASN.1: CONTAINING on ${type.kind}`);
      type.containing = this.type();
    } else {
      const range = this.range();
      if (type.kind === 'INTEGER') type.range = range;
      else throw new Error(`ASN.1: value constraint on ${type.kind} (${this.context()})`);
    }
    this.expect(')');
  }

  private parenthesisedRange(): Range {
    this.expect('(');
    const range = this.range();
    this.expect(')');
    return range;
  }

  /**
   * A root range `lb..ub` or a union of single values (`4 | 8`, kept as its extent), then an optional
   * extension marker; extension additions after it are not PER-visible (X.691 9.3.19) and are skipped.
   */
  private range(): Range {
    const parts: { lb: Value; ub: Value }[] = [];
    do {
      const lb = this.value();
      parts.push({ lb, ub: this.accept('..') ? this.value() : lb });
    } while (this.accept('|'));
    const bounds = parts.length === 1 ? parts[0]! : extent(parts.flatMap((part) => [part.lb, part.ub]));
    let extensible = false;
    if (this.accept(',')) {
      this.expect('...');
      extensible = true;
      if (this.accept(',')) {
        this.value();
        if (this.accept('..')) this.value();
      }
    }
    return { ...bounds, extensible };
  }

  private enumerated(): Type {
    const root: NamedNumber[] = [];
    let additions: NamedNumber[] | undefined;
    this.expect('{');
    let list = root;
    do {
      if (this.accept('...')) {
        additions = [];
        list = additions;
        continue;
      }
      const name = this.next();
      let value: number | undefined;
      if (this.accept('(')) {
        value = Number(this.next());
        this.expect(')');
      }
      list.push({ name, value });
    } while (this.accept(','));
    this.expect('}');
    return { kind: 'ENUMERATED', root, additions };
  }

  private sequenceOrSequenceOf(): Type {
    let size: Range | undefined;
    if (this.peek() === '(' && this.peek(1) === 'SIZE') {
      this.next();
      this.next();
      size = this.parenthesisedRange();
      this.expect(')');
    } else if (this.accept('SIZE')) size = this.parenthesisedRange();
    if (this.accept('OF')) {
      return { kind: 'SEQUENCE OF', size, item: this.type() };
    }
    if (size !== undefined) throw new Error('ASN.1: SIZE on a SEQUENCE');
    const { root, additions } = this.components(true);
    return { kind: 'SEQUENCE', root, additions };
  }

  private choice(): Type {
    const { root, additions } = this.components(false);
    const flat: Component[] | undefined = additions?.flatMap((addition) =>
      addition.group ? addition.components : [addition.component],
    );
    return { kind: 'CHOICE', root, additions: flat };
  }

  /**
   * Components of a SEQUENCE or CHOICE: root, then after `...` the extension additions and `[[ ]]`
   * groups; root components after a second `...` join the root (X.680 25.1).
   */
  private components(sequence: boolean): { root: Component[]; additions: Addition[] | undefined } {
    const root: Component[] = [];
    let additions: Addition[] | undefined;
    let markers = 0;
    this.expect('{');
    if (this.accept('}')) return { root, additions };
    do {
      if (this.accept('...')) {
        markers++;
        if (markers === 1) additions = [];
        continue;
      }
      if (this.accept('[[')) {
        if (this.peek(1) === ':') this.i += 2;
        const components: Component[] = [];
        do components.push(this.component(sequence));
        while (this.accept(','));
        this.expect(']]');
        if (additions === undefined) throw new Error('ASN.1: [[ outside an extension');
        additions.push({ group: true, components });
        continue;
      }
      const component = this.component(sequence);
      if (markers === 1) additions!.push({ group: false, component });
      else root.push(component);
    } while (this.accept(','));
    this.expect('}');
    return { root, additions };
  }

  private component(sequence: boolean): Component {
    const name = this.next();
    const type = this.type();
    let optional = false;
    let hasDefault = false;
    if (sequence && this.accept('OPTIONAL')) optional = true;
    else if (sequence && this.accept('DEFAULT')) {
      hasDefault = true;
      if (this.peek() === '{') this.block();
      else this.value();
    }
    return { name, type, optional, hasDefault };
  }
}

function extent(values: Value[]): { lb: Value; ub: Value } {
  if (values.some((value) => typeof value !== 'number'))
    throw new Error(`ASN.1: a union of named values ${values.join('|')} is not supported`);
  const numbers = values as number[];
  return { lb: Math.min(...numbers), ub: Math.max(...numbers) };
}

function syntaxTokens(tokens: string[]): SyntaxToken[] {
  const out: SyntaxToken[] = [];
  const stack: SyntaxToken[][] = [out];
  for (const token of tokens) {
    const top = stack[stack.length - 1]!;
    if (token === '[') {
      const group: SyntaxToken = { kind: 'optional', tokens: [] };
      top.push(group);
      stack.push(group.tokens);
    } else if (token === ']') stack.pop();
    else if (token.startsWith('&')) top.push({ kind: 'field', field: token });
    else top.push({ kind: 'word', word: token });
  }
  return out;
}

/** Parses every module in an ASN.1 text (3GPP files hold one each). */
export function parseModules(text: string): Module[] {
  const tokens = tokenize(text);
  const modules: Module[] = [];
  let start = 0;
  while (start < tokens.length) {
    const parser = new Parser(tokens.slice(start));
    modules.push(parser.module());
    start += parser.consumed;
  }
  return modules;
}

/** Parses one type from its tokens (an object's `TYPE` slot, or a test's snippet). */
export function parseType(tokens: string[]): { type: Type; consumed: number } {
  const parser = new Parser(tokens);
  const type = parser.type();
  return { type, consumed: parser.consumed };
}

/** Parses one value from its tokens. */
export function parseValue(tokens: string[]): { value: Value; consumed: number } {
  const parser = new Parser(tokens);
  const value = parser.value();
  return { value, consumed: parser.consumed };
}
