import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { api, result } from '../../api/client.ts';
import type { ListItem } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import { RECORD_KINDS } from '../../components/live-events.ts';
import { deviceNamed } from '../../components/recent-warnings.ts';
import { RecordsPage } from '../../components/records-page.tsx';
import { Time, useFormatTime } from '../../components/time.tsx';
import { LogDetail } from './record-detail.tsx';
import { distinct, recordTitle } from './record-title.ts';
import { useImsis } from './suggestions.ts';

const DIRECTION = {
  name: 'direction',
  label: 'Direction',
  kind: 'select',
  options: ['inbound', 'outbound'],
} as const;
const FROM = { name: 'timestamp_from', label: 'From', kind: 'datetime' } as const;
const TO = { name: 'timestamp_to', label: 'To', kind: 'datetime' } as const;

/** The connected radios' ids: what the radio picker suggests (a log may name one gone since). */
function useRadioIds(): string[] {
  const list = useQuery({
    queryKey: ['radios', 'ids'],
    queryFn: () => result(api.GET('/api/v1/ran/radios', { params: { query: { per_page: 100 } } })),
  });
  return distinct(list.data?.items, (radio) => radio.id);
}

export function SubscriberLogsPage() {
  const me = useMe();
  const imsis = useImsis();
  const format = useFormatTime();
  const [search] = useSearchParams();
  const imsi = search.get('imsi');
  return (
    <RecordsPage<ListItem<'/api/v1/logs/subscribers'>>
      title="Subscriber logs"
      queryKey="subscriber-logs"
      initial={imsi ? { imsi } : undefined}
      filters={[
        { name: 'imsi', label: 'IMSI', kind: 'suggest', options: imsis },
        { name: 'event', label: 'Event', kind: 'text' },
        DIRECTION,
        FROM,
        TO,
      ]}
      columns={[
        { label: 'Time', render: (log) => <Time value={log.timestamp} /> },
        { label: 'Level', render: (log) => log.level },
        // A device the core could not map to a subscriber has no IMSI: named by its SUCI or 5G-GUTI.
        { label: 'Device', render: (log) => deviceNamed(log.imsi, log.details) },
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
      liveKinds={RECORD_KINDS.subscriberLogs}
      titleOf={(log) =>
        recordTitle({
          what: log.event,
          direction: log.direction,
          peer: deviceNamed(log.imsi, log.details),
          time: format(log.timestamp),
        })
      }
      clear={me?.can.writeRecords ? () => result(api.DELETE('/api/v1/logs/subscribers')) : undefined}
    />
  );
}

export function RadioLogsPage() {
  const me = useMe();
  const radios = useRadioIds();
  const format = useFormatTime();
  const [search] = useSearchParams();
  const ranId = search.get('ran_id');
  return (
    <RecordsPage<ListItem<'/api/v1/logs/radio'>>
      title="Radio logs"
      queryKey="radio-logs"
      initial={ranId ? { ran_id: ranId } : undefined}
      filters={[
        { name: 'ran_id', label: 'Radio ID', kind: 'suggest', options: radios },
        { name: 'event', label: 'Event', kind: 'text' },
        DIRECTION,
        FROM,
        TO,
      ]}
      columns={[
        { label: 'Time', render: (log) => <Time value={log.timestamp} /> },
        { label: 'Level', render: (log) => log.level },
        { label: 'Radio', render: (log) => log.ran_id },
        { label: 'Event', render: (log) => log.event },
        { label: 'Direction', render: (log) => log.direction },
      ]}
      list={(query) => result(api.GET('/api/v1/logs/radio', { params: { query } }))}
      detail={(log) => <LogDetail details={log.details} raw={log.raw} />}
      liveKinds={RECORD_KINDS.radioLogs}
      titleOf={(log) =>
        recordTitle({
          what: log.event,
          direction: log.direction,
          peer: log.ran_id,
          time: format(log.timestamp),
        })
      }
      clear={me?.can.writeRecords ? () => result(api.DELETE('/api/v1/logs/radio')) : undefined}
    />
  );
}

/**
 * Audit logs: admin only; they cannot be cleared, only their retention removes them (decisions section 6).
 * The live stream's `audit` events reload the list as entries are written.
 */
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
        { label: 'Time', render: (log) => <Time value={log.timestamp} /> },
        { label: 'Level', render: (log) => log.level },
        { label: 'Actor', render: (log) => log.actor },
        { label: 'Action', render: (log) => log.action },
        { label: 'Address', render: (log) => log.ip },
        { label: 'Details', render: (log) => log.details },
      ]}
      list={(query) => result(api.GET('/api/v1/logs/audit', { params: { query } }))}
      liveKinds={RECORD_KINDS.auditLogs}
    />
  );
}
