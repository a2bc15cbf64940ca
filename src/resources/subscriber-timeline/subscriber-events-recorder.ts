import type { NetworkEvents } from '../../network/events/network-events.ts';
import type { PduSession } from '../../network/network-state.ts';
import type { RecordsIngestion } from '../../records/ingestion.ts';

/** A session's fields as its timeline shows them (docs/api.md, "One subscriber's timeline"). */
function sessionDetails(session: PduSession): Record<string, unknown> {
  return {
    pdu_session_id: session.id,
    data_network: session.dataNetwork,
    slice: { sst: session.slice.sst, sd: session.slice.sd },
    ip_type: session.ipType,
    ipv4_address: session.ipv4Address,
    ipv6_prefix: session.ipv6Prefix,
    status: session.status,
    ambr_uplink: session.ambrUplink,
    ambr_downlink: session.ambrDownlink,
  };
}

/**
 * Keeps the network's events about a subscriber that no other record holds (registered, deregistered,
 * sessions established, modified and released) as subscriber events (migration 0021), for its timeline.
 * They go through the records pipeline like the logs: a full queue drops them as it drops a log.
 * Returns the function that stops listening.
 */
export function recordSubscriberEvents(deps: {
  events: Pick<NetworkEvents, 'on'>;
  records: Pick<RecordsIngestion, 'recordSubscriberEvent'>;
}): () => void {
  const { events, records } = deps;
  const stops = [
    events.on('ue.registered', (e) =>
      records.recordSubscriberEvent({ imsi: e.supi, event: 'registered', details: { radio: e.radio } }),
    ),
    events.on('ue.deregistered', (e) =>
      records.recordSubscriberEvent({ imsi: e.supi, event: 'deregistered' }),
    ),
    events.on('session.established', (e) =>
      records.recordSubscriberEvent({
        imsi: e.supi,
        event: 'session.established',
        details: sessionDetails(e.session),
      }),
    ),
    events.on('session.modified', (e) =>
      records.recordSubscriberEvent({
        imsi: e.supi,
        event: 'session.modified',
        details: sessionDetails(e.session),
      }),
    ),
    events.on('session.released', (e) =>
      records.recordSubscriberEvent({
        imsi: e.supi,
        event: 'session.released',
        details: { pdu_session_id: e.pduSessionId },
      }),
    ),
  ];
  return () => stops.forEach((stop) => stop());
}
