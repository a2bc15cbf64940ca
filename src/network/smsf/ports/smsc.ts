// What the SMSF asks of the SMSC link (docs/sms.md, "SMSC link"): a device's message to a number outside
// the network is stored by the SMSF (before its RP-ACK, as every message is) and then handed to the link,
// which submits it to the external SMSC and settles it from the SMSC's answer and delivery receipt.
// core/network-functions.ts wires it to src/network/smsc-link/.

export interface SmsfSmscPort {
  /**
   * Whether numbers outside the network are taken: an SMSC link is configured and enabled (bound or
   * not yet). Without one, such a number is unassigned as far as this network knows (RP-ERROR #1).
   */
  accepts(): boolean;
  /** A message for a number outside the network was stored: the link submits it once bound. */
  queued(): void;
}
