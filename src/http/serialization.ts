import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serialize = (data: unknown) => string;

const buildDefault = SerializerSelector();
// Compiled once per response schema and process, like the validators (validation.ts): every app built
// in one process (tests build hundreds) shares them. Fastify hands each app its own copy of a route's
// schema, so the cache is keyed by the schema's text; no route uses shared (external) schemas.
const compiled = new Map<string, Serialize>();

/** Fastify's own response serializers (fast-json-stringify), compiled once per schema. */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = buildDefault(externalSchemas, options);
  return (route) => {
    const key = JSON.stringify(route.schema);
    const existing = compiled.get(key);
    if (existing) return existing;
    // Compiled at the first answer that uses it, not at start (like the validators, validation.ts).
    let serialize: Serialize | undefined;
    const lazy: Serialize = (data) => (serialize ??= compile(route) as Serialize)(data);
    compiled.set(key, lazy);
    return lazy;
  };
};
