import { api, result } from '../../api/client.ts';
import type { JsonBody } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import type { FieldSpec } from '../../components/form-values.ts';
import { PER_PAGE, ResourcePage } from '../../components/resource-page.tsx';

const FIELDS: FieldSpec[] = [
  {
    name: 'name',
    label: 'Name (DNN)',
    kind: 'text',
    required: true,
    createOnly: true,
    description: '1 to 63 letters, digits, - and .',
  },
];

export function DataNetworksPage() {
  const me = useMe();
  return (
    <ResourcePage
      title="Data networks"
      noun="data network"
      queryKey="data-networks"
      columns={[
        { label: 'Name', render: (network) => network.name },
        { label: 'Active sessions', render: (network) => network.status.sessions },
      ]}
      keyOf={(network) => network.name}
      fields={FIELDS}
      canWrite={me?.can.writeNetwork ?? false}
      list={async (page: number) => {
        const answer = await result(
          api.GET('/api/v1/networking/data-networks', { params: { query: { page, per_page: PER_PAGE } } }),
        );
        return { items: answer.items, total: answer.total_count };
      }}
      create={(body) =>
        result(
          api.POST('/api/v1/networking/data-networks', {
            body: body as JsonBody<'/api/v1/networking/data-networks', 'post'>,
          }),
        )
      }
      remove={(name) =>
        result(api.DELETE('/api/v1/networking/data-networks/{name}', { params: { path: { name } } }))
      }
    />
  );
}
