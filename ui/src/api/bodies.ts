import type { paths } from './schema';

/**
 * The JSON request body of an operation, as the service's OpenAPI document types it. Resource forms build
 * their bodies from text fields (components/form-values.ts) and name the operation's body with this.
 */
export type JsonBody<P extends keyof paths, M extends 'post' | 'put'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

type Get<P extends keyof paths> = paths[P]['get'];

/** An item of a paginated list the service answers at path P. */
export type ListItem<P extends keyof paths> =
  Get<P> extends {
    responses: { 200: { content: { 'application/json': { result: { items: (infer I)[] } } } } };
  }
    ? I
    : never;
