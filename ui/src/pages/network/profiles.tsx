import { api, result } from '../../api/client.ts';
import type { JsonBody } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import { ResourcePage } from '../../components/resource-page.tsx';
import { PROFILE_FIELDS } from './profile-fields.ts';

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
      fields={PROFILE_FIELDS}
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
