const settled = Promise.resolve();

/**
 * Whether an endpoint is handling received packets: from the first packet its link hands over until
 * the end of that task (the link's callback, then every promise reaction and `process.nextTick` it
 * leads to). A link hands a batch of datagrams over in one callback scope (the addon's sockets) or one
 * datagram a callback (`dgram`, the tests' memory link); either way the batch's task is one receive
 * task. The associations bundle what is sent inside it to the end of the turn, and flush what is sent
 * outside it (timers, storage callbacks) at the end of that task (association.ts, `#scheduleFlush`).
 */
export class ReceiveTask {
  #active = false;
  /**
   * Runs as a promise reaction, so it queues the end after every reaction the packets' handlers queued
   * (Node runs the `nextTick` queue once the reactions have drained).
   */
  readonly #endAfterReactions = (): void => {
    process.nextTick(this.#end);
  };
  readonly #end = (): void => {
    this.#active = false;
  };

  get active(): boolean {
    return this.#active;
  }

  /** A packet arrived: the current task is a receive task until it ends. */
  enter(): void {
    if (this.#active) return;
    this.#active = true;
    void settled.then(this.#endAfterReactions);
  }
}
