import { useSearchParams } from 'react-router';
import { api, result } from '../../api/client.ts';
import type { ListItem } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import { RecordsPage } from '../../components/records-page.tsx';
import { LogDetail } from './record-detail.tsx';

const DIRECTION = {
  name: 'direction',
  label: 'Direction',
  kind: 'select',
  options: ['inbound', 'outbound'],
} as const;
const FROM = { name: 'timestamp_from', label: 'From', kind: 'datetime' } as const;
const TO = { name: 'timestamp_to', label: 'To', kind: 'datetime' } as const;

export function SubscriberLogsPage() {
  const me = useMe();
  const [search] = useSearchParams();
  const imsi = search.get('imsi');
  return (
    <RecordsPage<ListItem<'/api/v1/logs/subscribers'>>
      title="Subscriber logs"
      queryKey="subscriber-logs"
      initial={imsi ? { imsi } : undefined}
      filters={[
        { name: 'imsi', label: 'IMSI', kind: 'text' },
        { name: 'event', label: 'Event', kind: 'text' },
        DIRECTION,
        FROM,
        TO,
      ]}
      columns={[
        { label: 'Time', render: (log) => log.timestamp },
        { label: 'Level', render: (log) => log.level },
        // Empty for a device the core could not map to a subscriber: its details name the SUCI or 5G-GUTI.
        { label: 'IMSI', render: (log) => log.imsi || '-' },
        { label: 'Event', render: (log) => log.event },
        { label: 'Direction', render: (log) => log.direction },
      ]}
      list={(query) =>
        result(
          api.GET('/api/v1/logs/subscribers', {
            params: { query },
          }),
        )
      }
      detail={(log) => <LogDetail details={log.details} raw={log.raw} />}
      clear={me?.can.writeRecords ? () => result(api.DELETE('/api/v1/logs/subscribers')) : undefined}
    />
  );
}

export function RadioLogsPage() {
  const me = useMe();
  const [search] = useSearchParams();
  const ranId = search.get('ran_id');
  return (
    <RecordsPage<ListItem<'/api/v1/logs/radio'>>
      title="Radio logs"
      queryKey="radio-logs"
      initial={ranId ? { ran_id: ranId } : undefined}
      filters={[
        { name: 'ran_id', label: 'Radio ID', kind: 'text' },
        { name: 'event', label: 'Event', kind: 'text' },
        DIRECTION,
        FROM,
        TO,
      ]}
      columns={[
        { label: 'Time', render: (log) => log.timestamp },
        { label: 'Level', render: (log) => log.level },
        { label: 'Radio', render: (log) => log.ran_id },
        { label: 'Event', render: (log) => log.event },
        { label: 'Direction', render: (log) => log.direction },
      ]}
      list={(query) => result(api.GET('/api/v1/logs/radio', { params: { query } }))}
      detail={(log) => <LogDetail details={log.details} raw={log.raw} />}
      clear={me?.can.writeRecords ? () => result(api.DELETE('/api/v1/logs/radio')) : undefined}
    />
  );
}

/** Audit logs: admin only; they cannot be cleared, only their retention removes them (decisions section 6). */
export function AuditLogsPage() {
  return (
    <RecordsPage<ListItem<'/api/v1/logs/audit'>>
      title="Audit logs"
      queryKey="audit-logs"
      filters={[
        { name: 'actor', label: 'Actor (e-mail)', kind: 'text' },
        { name: 'start', label: 'From day', kind: 'date' },
        { name: 'end', label: 'To day', kind: 'date' },
      ]}
      columns={[
        { label: 'Time', render: (log) => log.timestamp },
        { label: 'Level', render: (log) => log.level },
        { label: 'Actor', render: (log) => log.actor },
        { label: 'Action', render: (log) => log.action },
        { label: 'Address', render: (log) => log.ip },
        { label: 'Details', render: (log) => log.details },
      ]}
      list={(query) => result(api.GET('/api/v1/logs/audit', { params: { query } }))}
    />
  );
}
