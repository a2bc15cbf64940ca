/**
 * A fuzzer driven by the service's own OpenAPI document (issue 12, "How to prove it"): for every operation
 * it builds requests from the operation's parameter and body schemas, then mutates paths, queries, bodies,
 * content types, methods and credentials, all from one seeded PRNG so that a failure replays exactly. Each
 * answer must be below 500, and every error answer exactly `{"error": "<string>"}` without a trace of the
 * internals (stack frames, file paths, SQL, driver names).
 */

/** The parts of an OpenAPI 3 schema object the generator reads. */
export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  examples?: unknown[];
  default?: unknown;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  method: string;
  /** The OpenAPI path, `{name}` for path parameters. */
  path: string;
  parameters: Parameter[];
  /** The JSON body's schema, when the operation takes one. */
  body?: Schema;
  /** The body's media type when it is not JSON (multipart uploads). */
  bodyType?: string;
}

export interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }
    >
  >;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Every operation of the document. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => {
        const content = operation.requestBody?.content ?? {};
        const json = content['application/json'];
        const other = Object.keys(content).find((type) => type !== 'application/json');
        return {
          method: method.toUpperCase(),
          path,
          parameters: operation.parameters ?? [],
          ...(json?.schema ? { body: json.schema } : {}),
          ...(!json && other ? { bodyType: other } : {}),
        };
      }),
  );
}

/** mulberry32: a small seeded PRNG (public domain), so that one seed replays one run. */
export function prng(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number): number => Math.floor(next() * below);
  return {
    next,
    int,
    chance: (p: number): boolean => next() < p,
    pick: <T>(values: readonly T[]): T => values[int(values.length)] as T,
  };
}

export type Prng = ReturnType<typeof prng>;

/** Values that have broken parsers, coercions and serializers before. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  'a'.repeat(300),
  'x'.repeat(5000),
  '\u0000',
  '%',
  '%zz',
  '%00',
  '../../../etc/passwd',
  '..',
  "'; DROP TABLE users; --",
  '"',
  '\\',
  '💥',
  '\ud800',
  'null',
  'undefined',
  'true',
  '-1',
  '0',
  '1e400',
  'Infinity',
  '-Infinity',
  'NaN',
  '0x10',
  '9007199254740993',
  '400000000000000000',
  '1.5',
  '2026-13-45T99:99:99Z',
  '<script>',
  '__proto__',
  'constructor',
];

const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0.0,
  1e308,
  -1e308,
  2 ** 53 + 1,
  [],
  {},
  [null],
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
  { constructor: { prototype: { polluted: true } } },
  ...HOSTILE_STRINGS,
];

const typeOf = (schema: Schema): string | undefined =>
  Array.isArray(schema.type) ? schema.type.find((type) => type !== 'null') : schema.type;

/** A value that fits `schema` as far as the generator understands it (examples first). */
export function generate(schema: Schema, rng: Prng, depth = 0): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return rng.pick(schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices && choices.length > 0) return generate(rng.pick(choices), rng, depth);
  if (schema.examples && schema.examples.length > 0 && rng.chance(0.8)) return rng.pick(schema.examples);
  switch (typeOf(schema)) {
    case 'string':
      return stringFor(schema, rng);
    case 'integer':
    case 'number': {
      const low = schema.minimum ?? 0;
      const high = Math.min(schema.maximum ?? low + 100, low + 1000);
      const value = low + rng.next() * (high - low);
      return typeOf(schema) === 'integer' ? Math.round(value) : value;
    }
    case 'boolean':
      return rng.chance(0.5);
    case 'array': {
      if (depth > 4 || !schema.items) return [];
      const count = Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, rng.int(4)));
      return Array.from({ length: count }, () => generate(schema.items ?? {}, rng, depth + 1));
    }
    case 'object': {
      const object: Record<string, unknown> = {};
      if (depth > 4) return object;
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(name) || rng.chance(0.5))
          object[name] = generate(property, rng, depth + 1);
      }
      return object;
    }
    case 'null':
      return null;
    default:
      return rng.pick(HOSTILE_VALUES);
  }
}

const HEX_DIGITS = '0123456789abcdef'.split('');

function stringFor(schema: Schema, rng: Prng): string {
  switch (schema.format) {
    case 'email':
      return `fuzz-${rng.int(1000)}@example.com`;
    case 'date-time':
      return new Date(Date.UTC(2026, rng.int(12), 1 + rng.int(28))).toISOString();
    case 'date':
      return `2026-0${1 + rng.int(9)}-1${rng.int(10)}`;
    default: {
      const length = Math.max(schema.minLength ?? 1, Math.min(schema.maxLength ?? 12, 1 + rng.int(12)));
      return Array.from({ length }, () => rng.pick(HEX_DIGITS)).join('');
    }
  }
}

/** `value` with one part replaced by a hostile value, a property dropped, or one added. */
export function mutate(value: unknown, rng: Prng, depth = 0): unknown {
  if (depth > 3 || value === null || typeof value !== 'object' || rng.chance(0.3)) {
    if (rng.chance(0.1)) return deeplyNested(rng.pick([10, 1000, 5000]));
    return rng.pick(HOSTILE_VALUES);
  }
  if (Array.isArray(value)) {
    const copy: unknown[] = [...(value as unknown[])];
    if (copy.length > 0 && rng.chance(0.7)) {
      const index = rng.int(copy.length);
      copy[index] = mutate(copy[index], rng, depth + 1);
    } else copy.push(rng.pick(HOSTILE_VALUES));
    return copy;
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const roll = rng.next();
  if (keys.length > 0 && roll < 0.6) {
    const key = rng.pick(keys);
    copy[key] = mutate(copy[key], rng, depth + 1);
  } else if (keys.length > 0 && roll < 0.8) {
    delete copy[rng.pick(keys)];
  } else {
    copy[rng.pick(['unknown', 'id', '__proto__', 'constructor', 'x'.repeat(200)])] = rng.pick(HOSTILE_VALUES);
  }
  return copy;
}

/** Arrays nested `depth` deep, written into the JSON text by `toJson` (JSON.stringify would overflow). */
const NESTED = 'nested-arrays:';
const deeplyNested = (depth: number): string => `${NESTED}${depth}`;

/** JSON text of a generated value, with the deeply nested arrays spelled out. */
function toJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(
    new RegExp(`"${NESTED}(\\d+)"`, 'g'),
    (_, depth: string) => {
      const n = Number(depth);
      return `${'['.repeat(n)}1${']'.repeat(n)}`;
    },
  );
}

/** One request as `inject` takes it. */
export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

const ANY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'multipart/form-data',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/xml',
  'application/json, text/plain',
  'application/vnd.sqlite3',
  '*/*',
  ';',
];
const BODY_TEXTS = ['', '{', 'null', '[]', '"text"', '{"a":', '\u0000', '{"a":1}{"b":2}', 'x'.repeat(70_000)];

/** Percent-encoded; a lone surrogate (no UTF-8 form) as the bytes of an invalid UTF-8 sequence. */
function encode(text: string): string {
  return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\u0000')).replace(/%00/g, '%ED%A0%80');
}

function encodePathValue(value: unknown, rng: Prng): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  // Raw: malformed percent-encodings, slashes and dots reach the router as sent.
  return rng.chance(0.3) ? encode(text).replace(/%25/g, '%').replace(/%2F/g, '/') : encode(text);
}

/**
 * One request for `operation`, built from its schemas; in seven of eight requests one thing is then
 * changed: a path parameter, the query, the body (a value, or the text), the content type, the method or
 * the credentials.
 */
export function fuzzRequest(operation: Operation, rng: Prng, authorization: string): FuzzRequest {
  const mutation = rng.pick(['none', 'path', 'query', 'body', 'body-text', 'content-type', 'method', 'auth']);
  const pathParams = operation.parameters.filter((p) => p.in === 'path');
  const queryParams = operation.parameters.filter((p) => p.in === 'query');

  const mutatedParam = mutation === 'path' && pathParams.length > 0 ? rng.pick(pathParams).name : undefined;
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const param = pathParams.find((p) => p.name === name);
    const value = name === mutatedParam ? rng.pick(HOSTILE_VALUES) : generate(param?.schema ?? {}, rng);
    return encodePathValue(value, rng);
  });

  const query = new URLSearchParams();
  for (const param of queryParams) {
    if (param.required || rng.chance(0.4))
      query.append(param.name, String(generate(param.schema ?? {}, rng)));
  }
  let rawQuery = query.toString();
  if (mutation === 'query') {
    const name = queryParams.length > 0 && rng.chance(0.8) ? rng.pick(queryParams).name : 'unknown';
    const hostile = rng.pick(HOSTILE_VALUES);
    const value = typeof hostile === 'string' ? hostile : (JSON.stringify(hostile) ?? 'null');
    // Raw: malformed percent-encodings reach the query parser as sent.
    const extra = rng.chance(0.3)
      ? `${name}=${encode(value).replace(/%25/g, '%')}`
      : `${encode(name)}=${encode(value)}`;
    rawQuery = rng.chance(0.3) ? `${rawQuery}&${extra}&${extra}` : `${rawQuery}&${extra}`;
  }

  const headers: Record<string, string> = {};
  if (mutation !== 'auth' || rng.chance(0.2)) headers.authorization = authorization;
  else {
    const credential = rng.pick([
      'Bearer',
      'Bearer ',
      'Bearer core_x',
      `Bearer ${'a'.repeat(5000)}`,
      'Basic YTpi',
      'Bearer a.b.c',
    ]);
    headers.authorization = credential;
  }

  let payload: string | undefined;
  if (operation.body) {
    const value = generate(operation.body, rng);
    payload = toJson(mutation === 'body' ? mutate(value, rng) : value);
    headers['content-type'] = 'application/json';
  } else if (operation.bodyType) {
    payload = 'not a multipart body';
    headers['content-type'] = operation.bodyType;
  }
  if (mutation === 'body-text') {
    payload = rng.pick(BODY_TEXTS);
    headers['content-type'] = 'application/json';
  }
  if (mutation === 'content-type') {
    payload ??= '{}';
    headers['content-type'] = rng.pick(CONTENT_TYPES);
  }
  const method = mutation === 'method' ? rng.pick(ANY_METHODS) : operation.method;
  return {
    method,
    url: rawQuery ? `${path}?${rawQuery}` : path,
    headers,
    ...(payload !== undefined && method !== 'GET' && method !== 'HEAD' ? { payload } : {}),
  };
}

/** Traces of the internals an answer must never carry. */
const LEAKS: [RegExp, string][] = [
  [/\n\s+at [^\n]+\(|\bat (?:async )?[\w$.<>]+ \(/, 'a stack trace'],
  [/(?:\/[\w.-]+)+\.(?:ts|js|mjs|cjs)\b/, 'a source file path'],
  [/node_modules|\/work\/|\/home\/|\/usr\/(?:lib|local)/, 'a file system path'],
  [
    /SQLITE_|sqlite3|better-sqlite|no such (?:table|column)|\bkysely\b|syntax error at|\bSELECT\b.+\bFROM\b/i,
    'SQL or the driver',
  ],
  [/FST_ERR|ERR_[A-Z_]{4,}/, 'a framework error code'],
];

/** Why the answer breaks the contract, or undefined when it keeps it. */
export function violation(
  request: FuzzRequest,
  response: { statusCode: number; body: string; headers: Record<string, unknown> },
): string | undefined {
  if (response.statusCode >= 500) return `answered ${response.statusCode}: ${response.body.slice(0, 300)}`;
  if (response.statusCode < 400) return undefined;
  // Node's ServerResponse drops the body of an answer to HEAD on the wire; inject still shows it.
  if (request.method === 'HEAD' && response.body === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return `error body is not JSON: ${response.body.slice(0, 200)}`;
  }
  if (
    body === null ||
    typeof body !== 'object' ||
    Array.isArray(body) ||
    Object.keys(body).length !== 1 ||
    typeof (body as { error?: unknown }).error !== 'string'
  ) {
    return `error body is not exactly {"error": "<string>"}: ${response.body.slice(0, 200)}`;
  }
  const message = (body as { error: string }).error;
  for (const [pattern, what] of LEAKS) {
    // Only what the service adds counts: a message may echo (a little of) what the client sent.
    const match = pattern.exec(message);
    if (match && !request.url.includes(match[0]) && !String(request.payload ?? '').includes(match[0])) {
      return `error leaks ${what}: ${message.slice(0, 200)}`;
    }
  }
  return undefined;
}
