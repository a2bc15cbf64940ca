// An in-memory authentication-data port with the real one's contract: the fresh SQN (TS 33.102 Annex C,
// nextSqn) is stored before it is returned, after a turn of the event loop so concurrent calls interleave.
import { nextSqn } from '../../../src/crypto/sequence-number.ts';
import type { AuthenticationDataPort } from '../../../src/network/ports/authentication-data.ts';

export interface FakeSubscriber {
  k: Buffer;
  opc: Buffer;
  sqn: Buffer;
}

export interface FakeAuthenticationData extends AuthenticationDataPort {
  subscribers: Map<string, FakeSubscriber>;
  resynchronised: { imsi: string; sqnMs: Buffer }[];
}

export function fakeAuthenticationData(subscribers: Record<string, FakeSubscriber>): FakeAuthenticationData {
  const stored = new Map(Object.entries(subscribers).map(([imsi, s]) => [imsi, { ...s }]));
  const resynchronised: { imsi: string; sqnMs: Buffer }[] = [];
  return {
    subscribers: stored,
    resynchronised,
    async generateAuthenticationData(imsi) {
      const subscriber = stored.get(imsi);
      if (subscriber === undefined) return undefined;
      subscriber.sqn = nextSqn(subscriber.sqn);
      const { k, opc, sqn } = subscriber;
      await new Promise((resolve) => setImmediate(resolve));
      return { k, opc, sqn };
    },
    async resynchronise(imsi, sqnMs) {
      const subscriber = stored.get(imsi);
      if (subscriber === undefined) return false;
      subscriber.sqn = sqnMs;
      resynchronised.push({ imsi, sqnMs });
      return true;
    },
  };
}
