import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { api, result } from '../../api/client.ts';
import type { ListItem } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import { RECORD_KINDS } from '../../components/live-events.ts';
import { RecordsPage } from '../../components/records-page.tsx';
import { Time, useFormatTime } from '../../components/time.tsx';
import { DownloadCapture } from './download-capture.tsx';
import { RadioEventDetail } from './record-detail.tsx';
import { distinct, radioOfDetails, recordTitle } from './record-title.ts';
import { useImsis } from './suggestions.ts';

type RadioEvent = ListItem<'/api/v1/ran/events'>;

/** Protocols and message types among the latest 100 events: what the pickers suggest. */
function useRecentEvents() {
  const recent = useQuery({
    queryKey: ['radio-events', 'suggestions'],
    queryFn: () => result(api.GET('/api/v1/ran/events', { params: { query: { per_page: 100 } } })),
  });
  return {
    protocols: distinct(recent.data?.items, (event) => event.protocol),
    messageTypes: distinct(recent.data?.items, (event) => event.message_type),
  };
}

/** The connected radios' names: what the radio picker suggests (an event may name one gone since). */
function useRadioNames(): string[] {
  const list = useQuery({
    queryKey: ['radios', 'names'],
    queryFn: () => result(api.GET('/api/v1/ran/radios', { params: { query: { per_page: 100 } } })),
  });
  return distinct(list.data?.items, (radio) => radio.name);
}

export function RadioEventsPage() {
  const me = useMe();
  const recent = useRecentEvents();
  const radios = useRadioNames();
  const imsis = useImsis();
  const format = useFormatTime();
  const [search] = useSearchParams();
  // A radio's page and a subscriber's link here with their filter set.
  const initial = Object.fromEntries(
    ['radio', 'imsi'].flatMap((name) => {
      const value = search.get(name);
      return value ? [[name, value]] : [];
    }),
  );
  return (
    <RecordsPage<RadioEvent>
      title="Radio events"
      queryKey="radio-events"
      initial={initial}
      filters={[
        { name: 'radio', label: 'Radio', kind: 'suggest', options: radios },
        // The events whose details name the subscriber (recorded once the AMF knew its SUPI).
        { name: 'imsi', label: 'IMSI', kind: 'suggest', options: imsis },
        { name: 'protocol', label: 'Protocol', kind: 'suggest', options: recent.protocols },
        { name: 'message_type', label: 'Message type', kind: 'suggest', options: recent.messageTypes },
        { name: 'direction', label: 'Direction', kind: 'select', options: ['inbound', 'outbound'] },
        { name: 'timestamp_from', label: 'From', kind: 'datetime' },
        { name: 'timestamp_to', label: 'To', kind: 'datetime' },
      ]}
      columns={[
        { label: 'Time', render: (event) => <Time value={event.timestamp} /> },
        { label: 'Radio', render: (event) => radioOfDetails(event.details) ?? '-' },
        { label: 'Protocol', render: (event) => event.protocol },
        { label: 'Message', render: (event) => event.message_type },
        { label: 'Direction', render: (event) => event.direction },
      ]}
      list={(query) => result(api.GET('/api/v1/ran/events', { params: { query } }))}
      detail={(event) => <RadioEventDetail id={event.id} />}
      titleOf={(event) =>
        recordTitle({
          what: event.message_type,
          direction: event.direction,
          peer: radioOfDetails(event.details),
          time: format(event.timestamp),
        })
      }
      liveKinds={RECORD_KINDS.radioEvents}
      actions={(filters) => <DownloadCapture query={filters} />}
      clear={me?.can.writeRecords ? () => result(api.DELETE('/api/v1/ran/events')) : undefined}
    />
  );
}
