import { createMessageRuntime, type Received as ReceivedOf } from '../asn1/message-runtime.ts';
import { CONTAINER_IES, MESSAGE_IES, PROCEDURES } from './generated/ies.ts';
import type { NRPPAPDU } from './generated/types.ts';

/** The runtime of NRPPa's generated message readers (generated/messages.ts), over its tables. */
export const { readMessage } = createMessageRuntime<NRPPAPDU>({
  procedures: PROCEDURES,
  messageIes: MESSAGE_IES,
  containerIes: CONTAINER_IES,
});

/** What `read<Message>` takes: the decoded NRPPa PDU, or the message's protocol IEs. */
export type Received = ReceivedOf<NRPPAPDU>;
export type { Lenient, ReadResult } from '../asn1/message-runtime.ts';
