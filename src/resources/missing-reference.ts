import { InvalidError } from '../errors.ts';

/** The 400 for a body field that names a resource that does not exist. */
export function missingReference(field: string, kind: string, name: string): InvalidError {
  return new InvalidError(`${field} must name an existing ${kind}; there is no ${kind} "${name}"`);
}
