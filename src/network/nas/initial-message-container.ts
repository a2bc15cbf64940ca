// Protection of initial NAS messages (TS 24.501 4.4.6): a Registration Request or Service Request sent
// under a valid 5G NAS security context carries only its cleartext IEs and, when the UE has more to
// say, the NAS message container IE holding the entire message with its value part ciphered. The
// container is ciphered with the NAS COUNT of the message that carries it, the 3GPP access bearer and
// the uplink direction (TS 33.501 6.4.6; open5gs's AMF deciphers it with the message's `ul_count`,
// `gmm_handle_nas_message_container` in src/amf/gmm-handler.c).
import { nasEncrypt, UPLINK, type NasAlgorithm } from '../../crypto/nas-algorithms.ts';
import { NAS_CONNECTION_IDENTIFIER_3GPP } from '../nas-security/security-context.ts';
import { decodeNasMessage, encodeNasMessage, type NasMessageOf } from './message-codec.ts';

export type InitialNasMessage = NasMessageOf<'registrationRequest'> | NasMessageOf<'serviceRequest'>;

/** The ciphering half of the current 5G NAS security context (a `NasSecurityContext` is one). */
interface ContainerCipher {
  ciphering: NasAlgorithm;
  knasEnc: Buffer;
}

/** The cleartext IEs of TS 24.501 4.4.6 (the mandatory header fields are always sent). */
const CLEARTEXT: Record<InitialNasMessage['messageType'], ReadonlySet<string>> = {
  registrationRequest: new Set([
    'messageType',
    'registrationType',
    'ngKsi',
    'mobileIdentity',
    'ueSecurityCapability',
    'additionalGuti',
    'ueStatus',
    'epsNasMessageContainer',
  ]),
  serviceRequest: new Set(['messageType', 'ngKsi', 'serviceType', 'fiveGSTmsi']),
};

function cleartextOf<M extends InitialNasMessage>(message: M): { cleartext: M; more: boolean } {
  const allowed = CLEARTEXT[message.messageType];
  const entries = Object.entries(message).filter(([, value]) => value !== undefined);
  const kept = entries.filter(([name]) => allowed.has(name));
  return { cleartext: Object.fromEntries(kept) as M, more: kept.length < entries.length };
}

/** NEA over the container's value part: the same key stream ciphers and deciphers. */
function cipher(context: ContainerCipher, count: number, value: Uint8Array): Uint8Array {
  return nasEncrypt(
    context.ciphering,
    { key: context.knasEnc, count, bearer: NAS_CONNECTION_IDENTIFIER_3GPP, direction: UPLINK },
    value,
  );
}

/**
 * The initial NAS message a UE sends under `context` with uplink NAS COUNT `count` (the COUNT the
 * message is about to be integrity protected with): the cleartext IEs alone when they are all it has,
 * else the cleartext IEs and the whole message ciphered in the NAS message container (4.4.6 a, b).
 */
export function withCipheredContainer<M extends InitialNasMessage>(
  context: ContainerCipher,
  count: number,
  message: M,
): M {
  const { cleartext, more } = cleartextOf(message);
  if (!more) return cleartext;
  return { ...cleartext, nasMessageContainer: cipher(context, count, encodeNasMessage(message)) };
}

interface OpenedContainer<M extends InitialNasMessage> {
  /** The initial NAS message from now on: the container's when it opened, else the message itself. */
  message: M;
  /** The container's plain message octets, when it opened. */
  plain: Uint8Array | undefined;
  /** Why the container did not open (not a message of the same type once deciphered). */
  error: string | undefined;
}

/**
 * The network's side (4.4.6): the message inside the NAS message container of an initial NAS message
 * whose integrity verified with uplink NAS COUNT `count`, deciphered, is the initial NAS message from
 * then on. A container that does not decode as a message of the same type (without a container of its
 * own) leaves the cleartext message, with the error.
 */
export function openContainer<M extends InitialNasMessage>(
  context: ContainerCipher,
  count: number,
  message: M,
): OpenedContainer<M> {
  const container = message.nasMessageContainer;
  if (container === undefined) return { message, plain: undefined, error: undefined };
  const failed = (error: string): OpenedContainer<M> => ({ message, plain: undefined, error });
  const plain = cipher(context, count, container);
  const decoded = decodeNasMessage(plain);
  if (!decoded.ok) return failed(`container: ${decoded.error.kind}`);
  const inner = decoded.message;
  if (inner.messageType !== message.messageType)
    return failed(`container holds ${inner.messageType}, not ${message.messageType}`);
  if (inner.nasMessageContainer !== undefined) return failed('a container within the container');
  return { message: inner as M, plain, error: undefined };
}
