import type { FlowAction, FlowCount, FlowDirection } from './flow-records.ts';

/**
 * Flows between the forwarder's drains and their reports (network.md 7): a flow is reported after
 * `idleMs` without packets, after `activeMs` of activity (the next packets open a new flow), and when
 * its session is released. Times are the clock's at the drains, so a flow's start and end are known to
 * within one collection interval: `startTime` is the drain before the one that first saw it.
 */
export interface FlowTimeouts {
  idleMs: number;
  activeMs: number;
}

/** network.md 7: 30 s without packets, 30 min of activity. */
export const FLOW_TIMEOUTS: FlowTimeouts = { idleMs: 30_000, activeMs: 30 * 60_000 };

export interface EndedFlow {
  sessionId: number;
  sourceIp: string;
  destinationIp: string;
  sourcePort: number;
  destinationPort: number;
  protocol: number;
  direction: FlowDirection;
  action: FlowAction;
  packets: number;
  bytes: number;
  startTime: number;
  endTime: number;
}

export interface FlowTable {
  /** Merges one drain's counts, taken at `now`; `previousDrain` is when the drain before it ran. */
  add(counts: readonly FlowCount[], now: number, previousDrain: number): void;
  /** Removes and returns the flows that ended by `now`. */
  expire(now: number): EndedFlow[];
  /** Removes and returns every flow of a session (its release). */
  takeSession(sessionId: number): EndedFlow[];
  readonly size: number;
}

const keyOf = (c: FlowCount): string =>
  `${c.sessionId}|${c.sourceIp}|${c.destinationIp}|${c.sourcePort}|${c.destinationPort}|${c.protocol}|${c.direction}|${c.action}`;

export function createFlowTable(timeouts: FlowTimeouts = FLOW_TIMEOUTS): FlowTable {
  const flows = new Map<string, EndedFlow>();
  const bySession = new Map<number, Set<string>>();

  const remove = (key: string, flow: EndedFlow): void => {
    flows.delete(key);
    const keys = bySession.get(flow.sessionId);
    keys?.delete(key);
    if (keys?.size === 0) bySession.delete(flow.sessionId);
  };

  return {
    add(counts, now, previousDrain) {
      for (const count of counts) {
        const key = keyOf(count);
        const flow = flows.get(key);
        if (flow !== undefined) {
          flow.packets += count.packets;
          flow.bytes += count.bytes;
          flow.endTime = now;
          continue;
        }
        flows.set(key, {
          sessionId: count.sessionId,
          sourceIp: count.sourceIp,
          destinationIp: count.destinationIp,
          sourcePort: count.sourcePort,
          destinationPort: count.destinationPort,
          protocol: count.protocol,
          direction: count.direction,
          action: count.action,
          packets: count.packets,
          bytes: count.bytes,
          startTime: previousDrain,
          endTime: now,
        });
        let keys = bySession.get(count.sessionId);
        if (keys === undefined) bySession.set(count.sessionId, (keys = new Set()));
        keys.add(key);
      }
    },
    expire(now) {
      const ended: EndedFlow[] = [];
      for (const [key, flow] of flows) {
        if (now - flow.endTime >= timeouts.idleMs || now - flow.startTime >= timeouts.activeMs) {
          ended.push(flow);
          remove(key, flow);
        }
      }
      return ended;
    },
    takeSession(sessionId) {
      const ended: EndedFlow[] = [];
      for (const key of bySession.get(sessionId) ?? []) {
        const flow = flows.get(key);
        if (flow !== undefined) ended.push(flow);
        flows.delete(key);
      }
      bySession.delete(sessionId);
      return ended;
    },
    get size() {
      return flows.size;
    },
  };
}
