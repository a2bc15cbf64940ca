import { api, result } from '../../api/client.ts';
import type { JsonBody } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import type { FieldSpec } from '../../components/form-values.ts';
import { PER_PAGE, ResourcePage } from '../../components/resource-page.tsx';

const FIELDS: FieldSpec[] = [
  { name: 'name', label: 'Name', kind: 'text', required: true, createOnly: true },
  { name: 'sst', label: 'SST', kind: 'integer', required: true, description: 'Slice/Service Type, 0 to 255' },
  {
    name: 'sd',
    label: 'SD',
    kind: 'text',
    description: 'Slice Differentiator: 6 hexadecimal characters, optional',
  },
];

export function SlicesPage() {
  const me = useMe();
  return (
    <ResourcePage
      title="Slices"
      noun="slice"
      queryKey="slices"
      columns={[
        { label: 'Name', render: (slice) => slice.name },
        { label: 'SST', render: (slice) => slice.sst },
        { label: 'SD', render: (slice) => slice.sd ?? '—' },
      ]}
      keyOf={(slice) => slice.name}
      fields={FIELDS}
      canWrite={me?.can.writeNetwork ?? false}
      list={async (page: number) => {
        const answer = await result(
          api.GET('/api/v1/slices', { params: { query: { page, per_page: PER_PAGE } } }),
        );
        return { items: answer.items, total: answer.total_count };
      }}
      create={(body) =>
        result(api.POST('/api/v1/slices', { body: body as JsonBody<'/api/v1/slices', 'post'> }))
      }
      update={(name, body) =>
        result(
          api.PUT('/api/v1/slices/{name}', {
            params: { path: { name } },
            body: body as JsonBody<'/api/v1/slices/{name}', 'put'>,
          }),
        )
      }
      remove={(name) => result(api.DELETE('/api/v1/slices/{name}', { params: { path: { name } } }))}
    />
  );
}
