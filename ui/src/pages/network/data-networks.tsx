import { useQueryClient } from '@tanstack/react-query';
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
    // The API renames a data network by its PUT (decisions section 8); policies follow the rename.
    description: '1 to 63 letters, digits, - and .; renaming keeps the policies that use it',
  },
];

export function DataNetworksPage() {
  const me = useMe();
  const queryClient = useQueryClient();
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
      update={async (name, body) => {
        const answer = await result(
          api.PUT('/api/v1/networking/data-networks/{name}', {
            params: { path: { name } },
            body: body as JsonBody<'/api/v1/networking/data-networks/{name}', 'put'>,
          }),
        );
        // The policies that name it now show the new name.
        await queryClient.invalidateQueries({ queryKey: ['policies'] });
        return answer;
      }}
      remove={(name) =>
        result(api.DELETE('/api/v1/networking/data-networks/{name}', { params: { path: { name } } }))
      }
    />
  );
}
