import type { NetworkEvents } from '../../src/network/events/network-events.ts';
import type { NetworkState, PduSession, Registration, ServingCell } from '../../src/network/network-state.ts';
import type { RadioChanges, RadioConnection } from '../../src/network/radio-registry.ts';

/**
 * What the network functions report, for tests that set the network's picture up without running them:
 * each call emits the event the AMF, N2 or SMF would emit, so network state takes it through its only
 * way in. The radio calls say, as network state would, whether the radio was connected.
 */
export function networkReports(network: {
  networkEvents: Pick<NetworkEvents, 'emit'>;
  networkState: Pick<NetworkState, 'radios'>;
}) {
  const events = network.networkEvents;
  const connected = (id: string): boolean => network.networkState.radios().some((r) => r.id === id);
  return {
    radioConnected: (connection: RadioConnection): void => events.emit('radio.connected', connection),
    radioUpdated(id: string, changes?: RadioChanges): boolean {
      const was = connected(id);
      events.emit('radio.updated', changes === undefined ? { id } : { id, changes });
      return was;
    },
    radioDisconnected(id: string): boolean {
      const was = connected(id);
      events.emit('radio.disconnected', { id });
      return was;
    },
    subscriberRegistered: (supi: string, radio: string, registration: Registration): void =>
      events.emit('ue.registered', { supi, radio, registration }),
    subscriberSeen: (supi: string, radio: string, servingCell?: ServingCell): void =>
      events.emit('ue.seen', { supi, radio, servingCell }),
    subscriberDeregistered: (supi: string): void => events.emit('ue.deregistered', { supi }),
    sessionEstablished: (supi: string, session: PduSession): void =>
      events.emit('session.established', { supi, session }),
    sessionReleased: (supi: string, pduSessionId: number): void =>
      events.emit('session.released', { supi, pduSessionId }),
  };
}

export type NetworkReports = ReturnType<typeof networkReports>;
