import { createMessageRuntime, type Received as ReceivedOf } from '../asn1/message-runtime.ts';
import { CONTAINER_IES, MESSAGE_IES, PROCEDURES } from './generated/ies.ts';
import type { NGAPPDU } from './generated/types.ts';

/** The runtime of NGAP's generated message readers (generated/messages.ts), over its tables. */
export const { readContainer, readMessage } = createMessageRuntime<NGAPPDU>({
  procedures: PROCEDURES,
  messageIes: MESSAGE_IES,
  containerIes: CONTAINER_IES,
});

/** What `read<Message>` takes: the decoded NGAP PDU, or the message's protocol IEs. */
export type Received = ReceivedOf<NGAPPDU>;
export type { Lenient, ReadFailure, ReadResult } from '../asn1/message-runtime.ts';
