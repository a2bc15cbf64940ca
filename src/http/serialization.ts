import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyReply } from 'fastify';

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

/**
 * Answers with text that is already the JSON of the route's response schema (built by the route for a hot
 * read, and tested to be the bytes the schema's serializer writes): Fastify sends a string of a JSON
 * content type as it is.
 */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}
