import { api, result } from '../../api/client.ts';
import type { JsonBody } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import type { FieldSpec } from '../../components/form-values.ts';
import { ResourcePage } from '../../components/resource-page.tsx';

const BITRATE = 'A number and Mbps or Gbps, e.g. 100 Mbps';
const FIELDS: FieldSpec[] = [
  { name: 'name', label: 'Name', kind: 'text', required: true, createOnly: true },
  {
    name: 'ue-ip-pool',
    label: 'UE IP pool',
    kind: 'text',
    required: true,
    description: 'CIDR, e.g. 10.45.0.0/16',
  },
  { name: 'dns', label: 'DNS server', kind: 'text', required: true, description: 'An IP address' },
  { name: 'mtu', label: 'MTU', kind: 'integer', required: true, description: '0 to 65535' },
  { name: 'bitrate-uplink', label: 'Uplink bitrate', kind: 'text', required: true, description: BITRATE },
  { name: 'bitrate-downlink', label: 'Downlink bitrate', kind: 'text', required: true, description: BITRATE },
  { name: 'var5qi', label: '5QI', kind: 'integer', required: true, description: '1 to 255' },
  {
    name: 'priority-level',
    label: 'Priority level',
    kind: 'integer',
    required: true,
    description: '1 to 255',
  },
];

export function ProfilesPage() {
  const me = useMe();
  return (
    <ResourcePage
      title="Profiles"
      noun="profile"
      queryKey="profiles"
      columns={[
        { label: 'Name', render: (profile) => profile.name },
        { label: 'UE IP pool', render: (profile) => profile['ue-ip-pool'] },
        { label: 'DNS', render: (profile) => profile.dns },
        {
          label: 'Bitrate up / down',
          render: (profile) => `${profile['bitrate-uplink']} / ${profile['bitrate-downlink']}`,
        },
        { label: '5QI', render: (profile) => profile.var5qi },
        { label: 'Priority', render: (profile) => profile['priority-level'] },
      ]}
      keyOf={(profile) => profile.name}
      fields={FIELDS}
      canWrite={me?.can.writeNetwork ?? false}
      list={async () => ({ items: await result(api.GET('/api/v1/profiles')) })}
      load={(name) => result(api.GET('/api/v1/profiles/{name}', { params: { path: { name } } }))}
      create={(body) =>
        result(api.POST('/api/v1/profiles', { body: body as JsonBody<'/api/v1/profiles', 'post'> }))
      }
      update={(name, body) =>
        result(
          api.PUT('/api/v1/profiles/{name}', {
            params: { path: { name } },
            body: body as JsonBody<'/api/v1/profiles/{name}', 'put'>,
          }),
        )
      }
      remove={(name) => result(api.DELETE('/api/v1/profiles/{name}', { params: { path: { name } } }))}
    />
  );
}
