import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isCidrNetwork, isIpAddress } from '../validation/ip-network.ts';

/**
 * Schemas may carry `x-error`, a phrase that replaces Ajv's wording when that schema node fails
 * ("sd must be 6 hexadecimal characters"). It is also a valid OpenAPI extension.
 */
const ERROR_KEYWORD = 'x-error';

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    verbose: true,
    strict: true,
    ...options,
  });
  addFormats.default(ajv, ['email', 'date-time', 'date', 'ipv4', 'ipv6', 'uuid']);
  // Either IP family: DNS servers and UE address pools may be IPv4 or IPv6.
  ajv.addFormat('ip', isIpAddress);
  ajv.addFormat('cidr', isCidrNetwork);
  ajv.addVocabulary([ERROR_KEYWORD, 'example']);
  return ajv;
}

// Bodies keep JSON types as sent ("1" is not 1); query strings and path parameters are text, so coerce.
const bodyAjv = createAjv({ coerceTypes: false });
const textAjv = createAjv({ coerceTypes: 'array' });

// Compiled once per schema and process: every app built in one process (tests build hundreds) shares
// the validators. Fastify hands each app its own copy of some route schemas, so the key is the text.
const compiledBodies = new Map<string, ValidateFunction>();
const compiledTexts = new Map<string, ValidateFunction>();

/**
 * Each validator is compiled when its route first validates, not when the route is registered: a start
 * compiles none of the hundreds of schemas (docs/operations.md, "Starting fast"). Every schema is still
 * compiled by the tests, which call every operation.
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const [ajv, compiled] = httpPart === 'body' ? [bodyAjv, compiledBodies] : [textAjv, compiledTexts];
  const key = JSON.stringify(schema);
  const existing = compiled.get(key);
  if (existing) return existing;
  let validate: ValidateFunction | undefined;
  const lazy = ((data: unknown) => {
    validate ??= httpPart === 'body' ? ajv.compile(schema) : withDecimalNumbers(schema, ajv.compile(schema));
    const valid = validate(data);
    lazy.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  compiled.set(key, lazy);
  return lazy;
};

const DECIMAL = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ } as const;

/**
 * Query strings and path parameters are text, and Ajv coerces number-typed text with `Number()`, which
 * also reads `1e400` and `Infinity` (infinities pass `maximum`), `0x10` and integers beyond 2^53
 * (silently altered). Only plain decimal text whose value is exact is a number here; anything else is
 * the same 400 as a wrong type.
 */
function withDecimalNumbers(schema: object, validate: ValidateFunction): ValidateFunction {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const numeric = Object.entries(properties).flatMap(([name, property]) =>
    property.type === 'integer' || property.type === 'number'
      ? [{ name, type: property.type === 'integer' ? ('integer' as const) : ('number' as const), property }]
      : [],
  );
  if (numeric.length === 0) return validate;
  const checked = ((data: Record<string, unknown>) => {
    for (const { name, type, property } of numeric) {
      const text = data?.[name];
      if (typeof text !== 'string') continue;
      const value = Number(text);
      const exact = type === 'integer' ? Number.isSafeInteger(value) : Number.isFinite(value);
      if (!DECIMAL[type].test(text) || !exact) {
        checked.errors = [
          {
            keyword: 'type',
            instancePath: `/${name}`,
            schemaPath: `#/properties/${name}/type`,
            params: { type },
            message: `must be ${type}`,
            parentSchema: property,
          },
        ];
        return false;
      }
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return checked;
}

const PART_NAMES: Record<string, string> = {
  querystring: 'query parameter ',
  params: 'path parameter ',
  headers: 'header ',
  body: '',
};

function joinPath(instancePath: string, property?: string): string {
  const segments = instancePath.split('/').filter(Boolean);
  if (property !== undefined) segments.push(property);
  return segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** One sentence naming the field at fault, from the errors Ajv reported for a request part. */
export function describeValidationErrors(errors: ErrorObject[], context: string): string {
  const prefix = PART_NAMES[context] ?? '';
  const error = errors.find((e) => typeof e.parentSchema?.[ERROR_KEYWORD] === 'string') ?? errors[0];
  if (!error) return 'request is invalid';
  const params = error.params as Record<string, unknown>;

  if (error.keyword === 'required') {
    return `${prefix}${joinPath(error.instancePath, String(params.missingProperty))} is required`;
  }
  if (error.keyword === 'additionalProperties') {
    const field = joinPath(error.instancePath, String(params.additionalProperty));
    return context === 'body' ? `unknown field "${field}"` : `unknown ${prefix}"${field}"`;
  }
  const field = joinPath(error.instancePath);
  const custom: unknown = error.parentSchema?.[ERROR_KEYWORD];
  if (field === '' && context === 'body') {
    return typeof custom === 'string' ? `request body ${custom}` : 'request body must be a JSON object';
  }
  const subject = `${prefix}${field}`;
  if (typeof custom === 'string') return `${subject} ${custom}`;
  switch (error.keyword) {
    case 'type':
      return `${subject} must be ${article(String(params.type))}`;
    case 'enum':
      return `${subject} must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'format':
      return `${subject} must be ${article(String(params.format))}`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}`;
  }
}

/**
 * Checks a value against a body schema outside a request (the rows of a bulk import), with the same
 * rules and wording as a request body: undefined when valid, else the 400 message naming the field.
 */
export function bodyChecker(schema: object): (value: unknown) => string | undefined {
  const validate = bodyAjv.compile(schema);
  return (value) => (validate(value) ? undefined : describeValidationErrors(validate.errors ?? [], 'body'));
}
