import { useQuery } from '@tanstack/react-query';
import { api, result } from '../../api/client.ts';
import type { ListItem } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import { RECORD_KINDS } from '../../components/live-events.ts';
import { RecordsPage } from '../../components/records-page.tsx';
import { Time, useFormatTime } from '../../components/time.tsx';
import { DownloadCapture } from './download-capture.tsx';
import { RadioEventDetail } from './record-detail.tsx';
import { distinct, radioOfDetails, recordTitle } from './record-title.ts';

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

export function RadioEventsPage() {
  const me = useMe();
  const recent = useRecentEvents();
  const format = useFormatTime();
  return (
    <RecordsPage<RadioEvent>
      title="Radio events"
      queryKey="radio-events"
      filters={[
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
