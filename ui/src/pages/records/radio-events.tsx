import { api, result } from '../../api/client.ts';
import type { ListItem } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import { RecordsPage } from '../../components/records-page.tsx';
import { RadioEventDetail } from './record-detail.tsx';

export function RadioEventsPage() {
  const me = useMe();
  return (
    <RecordsPage<ListItem<'/api/v1/ran/events'>>
      title="Radio events"
      queryKey="radio-events"
      filters={[
        { name: 'protocol', label: 'Protocol', kind: 'text' },
        { name: 'message_type', label: 'Message type', kind: 'text' },
        { name: 'direction', label: 'Direction', kind: 'select', options: ['inbound', 'outbound'] },
        { name: 'timestamp_from', label: 'From', kind: 'datetime' },
        { name: 'timestamp_to', label: 'To', kind: 'datetime' },
      ]}
      columns={[
        { label: 'Time', render: (event) => event.timestamp },
        { label: 'Protocol', render: (event) => event.protocol },
        { label: 'Message', render: (event) => event.message_type },
        { label: 'Direction', render: (event) => event.direction },
      ]}
      list={(query) => result(api.GET('/api/v1/ran/events', { params: { query } }))}
      detail={(event) => <RadioEventDetail id={event.id} />}
      clear={me?.can.writeRecords ? () => result(api.DELETE('/api/v1/ran/events')) : undefined}
    />
  );
}
