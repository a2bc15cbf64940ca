// Names of messages and IEs as the API shows them: TS 24.501's message names in title case for the
// subscriber logs (network.md section 4), snake_case keys for the `decoded` view of a NAS-PDU
// (network.md section 3), and that view itself.
import { messageDefinition, type NasMessage, type NasMessageType } from './message-codec.ts';

/** `Registration Request`, `PDU Session Establishment Request`, `5GMM Status`... */
export function messageTitle(messageType: NasMessageType): string {
  return messageDefinition(messageType).title;
}

/** `registrationRequest` -> `registration_request`; `fiveGmmCause` -> `5gmm_cause`; `t3512Value` -> `t3512_value`. */
export function snakeCase(name: string): string {
  return name
    .replace(/^five(G[a-z]*)/, (_, rest: string) => `5${rest.toLowerCase()}`)
    .replace(/([a-z])(5g|3gpp)(?=[A-Z])/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1_')
    .toLowerCase();
}

/**
 * A JSON-ready view of a decoded message: `{ "registration_request": { "5gs_registration_type": ... } }`
 * with snake_case keys, byte strings as lower-case hex, numbers and strings as they are.
 */
export function decodedView(message: NasMessage): Record<string, unknown> {
  const { messageType, ...ies } = message;
  return { [snakeCase(messageType)]: view(ies) };
}

function view(value: unknown): unknown {
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.length).toString('hex');
  if (Array.isArray(value)) return value.map(view);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [snakeCase(key), view(inner)]));
  return value;
}
