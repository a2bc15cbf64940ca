import { api, result } from '../../api/client.ts';
import type { ListItem } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import { RecordsPage } from '../../components/records-page.tsx';
import { SmsContent, SmsStatus } from '../../components/sms-status.tsx';
import { Time } from '../../components/time.tsx';

type Sms = ListItem<'/api/v1/sms'>;

/** Every stored short message (GET /api/v1/sms, one row per part) with the API's filters. */
export function SmsPage() {
  const me = useMe();
  return (
    <RecordsPage<Sms>
      title="Short messages"
      queryKey="sms"
      filters={[
        { name: 'imsi', label: 'IMSI', kind: 'text' },
        { name: 'msisdn', label: 'MSISDN', kind: 'text' },
        {
          name: 'direction',
          label: 'Direction',
          kind: 'select',
          options: ['mobile-originated', 'network-originated'],
        },
        {
          name: 'status',
          label: 'Status',
          kind: 'select',
          options: ['queued', 'delivered', 'failed', 'expired'],
        },
        { name: 'timestamp_from', label: 'From', kind: 'datetime' },
        { name: 'timestamp_to', label: 'To', kind: 'datetime' },
      ]}
      columns={[
        { label: 'Time', render: (sms) => <Time value={sms.created_at} /> },
        { label: 'Direction', render: (sms) => sms.direction },
        { label: 'Sender', render: (sms) => sms.from },
        { label: 'Recipient', render: (sms) => sms.to_msisdn ?? sms.to_imsi },
        { label: 'Text', render: (sms) => <SmsContent message={sms} /> },
        { label: 'Status', render: (sms) => <SmsStatus message={sms} /> },
      ]}
      list={(query) => result(api.GET('/api/v1/sms', { params: { query } }))}
      clear={me?.can.writeRecords ? () => result(api.DELETE('/api/v1/sms')) : undefined}
    />
  );
}
