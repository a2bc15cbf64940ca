import { api, result } from '../../api/client.ts';
import type { JsonBody } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import type { FieldSpec } from '../../components/form-values.ts';
import { PER_PAGE, ResourcePage } from '../../components/resource-page.tsx';
import { useNames } from './use-names.ts';

const BITRATE = 'A number and Mbps or Gbps, e.g. 100 Mbps';

export function PoliciesPage() {
  const me = useMe();
  const dataNetworks = useNames('data-networks');
  const profiles = useNames('profiles');
  const slices = useNames('slices');
  const fields: FieldSpec[] = [
    { name: 'name', label: 'Name', kind: 'text', required: true, createOnly: true },
    {
      name: 'data_network_name',
      label: 'Data network',
      kind: 'select',
      required: true,
      options: dataNetworks,
    },
    {
      name: 'profile_name',
      label: 'Profile',
      kind: 'select',
      options: profiles,
      description: 'Subscribers of this profile only; any profile when empty',
    },
    {
      name: 'slice_name',
      label: 'Slice',
      kind: 'select',
      options: slices,
      description: 'On this slice only; any slice when empty',
    },
    { name: 'bitrate_uplink', label: 'Uplink bitrate', kind: 'text', required: true, description: BITRATE },
    {
      name: 'bitrate_downlink',
      label: 'Downlink bitrate',
      kind: 'text',
      required: true,
      description: BITRATE,
    },
    { name: 'var5qi', label: '5QI', kind: 'integer', required: true, description: '1 to 255' },
    {
      name: 'arp',
      label: 'ARP',
      kind: 'integer',
      required: true,
      description: 'Allocation and retention priority, 1 to 15',
    },
  ];
  return (
    <ResourcePage
      title="Policies"
      noun="policy"
      queryKey="policies"
      columns={[
        { label: 'Name', render: (policy) => policy.name },
        { label: 'Data network', render: (policy) => policy.data_network_name },
        { label: 'Profile', render: (policy) => policy.profile_name ?? 'any' },
        { label: 'Slice', render: (policy) => policy.slice_name ?? 'any' },
        {
          label: 'Bitrate up / down',
          render: (policy) => `${policy.bitrate_uplink} / ${policy.bitrate_downlink}`,
        },
        { label: '5QI', render: (policy) => policy.var5qi },
        { label: 'ARP', render: (policy) => policy.arp },
      ]}
      keyOf={(policy) => policy.name}
      fields={fields}
      canWrite={me?.can.writeNetwork ?? false}
      list={async (page: number) => {
        const answer = await result(
          api.GET('/api/v1/policies', { params: { query: { page, per_page: PER_PAGE } } }),
        );
        return { items: answer.items, total: answer.total_count };
      }}
      create={(body) =>
        result(api.POST('/api/v1/policies', { body: body as JsonBody<'/api/v1/policies', 'post'> }))
      }
      update={(name, body) =>
        result(
          api.PUT('/api/v1/policies/{name}', {
            params: { path: { name } },
            body: body as JsonBody<'/api/v1/policies/{name}', 'put'>,
          }),
        )
      }
      remove={(name) => result(api.DELETE('/api/v1/policies/{name}', { params: { path: { name } } }))}
    />
  );
}
