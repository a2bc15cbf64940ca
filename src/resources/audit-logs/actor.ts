/** Who performs a change, as the audit log records it: an e-mail and the client address. */
export interface Actor {
  email: string;
  ip: string;
}
