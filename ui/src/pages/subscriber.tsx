import {
  Alert,
  Button,
  Card,
  Code,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, result } from '../api/client.ts';
import { useMe } from '../auth/use-me.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { useNames } from './network/use-names.ts';
import { EditMsisdn } from './subscriber-msisdn.tsx';
import { SubscriberTimeline } from './subscriber-timeline.tsx';
import { DownloadCapture } from './records/download-capture.tsx';
import { useRefreshInterval } from '../components/preferences.ts';
import { Time } from '../components/time.tsx';

// Loaded when a subscriber is opened: its part counter brings the SMS alphabet tables, kept off the first load.
const SubscriberMessages = lazy(async () => ({
  default: (await import('./subscriber-sms.tsx')).SubscriberMessages,
}));

function Field({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text>{value === undefined || value === '' ? '—' : value}</Text>
    </div>
  );
}

/** The subscriber's profile, changed in place (PUT /subscribers/{imsi} takes only the profile). */
function EditProfile({ imsi, current }: { imsi: string; current: string }) {
  const queryClient = useQueryClient();
  const [profile, setProfile] = useState(current);
  const profiles = useNames('profiles');
  const save = useMutation({
    mutationFn: (name: string) =>
      result(
        api.PUT('/api/v1/subscribers/{imsi}', { params: { path: { imsi } }, body: { profile_name: name } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['subscribers'] }),
  });
  return (
    <Stack gap="xs">
      <Group align="flex-end">
        <Select
          label="Profile"
          data={profiles.length > 0 ? profiles : [current]}
          value={profile}
          allowDeselect={false}
          error={save.error?.message}
          onChange={(name) => setProfile(name ?? current)}
        />
        <Button
          variant="light"
          disabled={profile === current}
          loading={save.isPending}
          onClick={() => save.mutate(profile)}
        >
          Change profile
        </Button>
      </Group>
      {save.isSuccess && save.variables === current && <Text size="sm">Profile changed.</Text>}
    </Stack>
  );
}

export function SubscriberPage() {
  const { imsi = '' } = useParams();
  const me = useMe();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => result(api.DELETE('/api/v1/subscribers/{imsi}', { params: { path: { imsi } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['subscribers', imsi] });
      await queryClient.invalidateQueries({ queryKey: ['subscribers'] });
      await navigate('/subscribers');
    },
  });
  const subscriber = useQuery({
    queryKey: ['subscribers', imsi],
    queryFn: () => result(api.GET('/api/v1/subscribers/{imsi}', { params: { path: { imsi } } })),
    refetchInterval: useRefreshInterval(10_000),
  });
  // Each reveal is a request the service writes to the audit log: never cached, never automatic.
  const credentials = useMutation({
    mutationFn: () =>
      result(api.GET('/api/v1/subscribers/{imsi}/credentials', { params: { path: { imsi } } })),
  });
  const data = subscriber.data;
  return (
    <Stack>
      <Text size="sm">
        <Link to="/subscribers">Subscribers</Link> / {imsi}
      </Text>
      <Group justify="space-between">
        <Title order={1} size="h3">
          Subscriber {imsi}
        </Title>
        <Group align="flex-start">
          {/* Its signalling for Wireshark: the radio events whose details name it. */}
          {data && <DownloadCapture query={{ imsi }} filename={`radio-events-${imsi}.pcapng`} />}
          {me?.can.writeNetwork && data && (
            <Button
              color="red"
              variant="outline"
              loading={remove.isPending}
              onClick={() => {
                if (window.confirm(`Delete subscriber ${imsi}?`)) remove.mutate();
              }}
            >
              Delete subscriber
            </Button>
          )}
        </Group>
      </Group>
      <Group>
        <Link to={`/radio-events?imsi=${imsi}`}>Its radio events</Link>
        <Link to={`/logs/subscribers?imsi=${imsi}`}>Its subscriber logs</Link>
      </Group>
      <ErrorAlert error={subscriber.error ?? remove.error} />
      {data && (
        <>
          <Card withBorder>
            <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
              <Field label="Profile" value={data.profile_name} />
              <Field label="MSISDN" value={data.msisdn ?? ''} />
              <Field label="Registered" value={data.status.registered ? 'yes' : 'no'} />
              <Field label="Radio access" value={data.status.radio_access_types.join(', ')} />
              <Field label="IMEI" value={data.status.imei} />
              <Field
                label="Last seen"
                value={data.status.last_seen_at && <Time value={data.status.last_seen_at} />}
              />
              <Field label="Last radio" value={data.status.last_seen_radio} />
              <Field label="Ciphering" value={data.status.ciphering_algorithm} />
              <Field label="Integrity" value={data.status.integrity_algorithm} />
            </SimpleGrid>
          </Card>
          {me?.can.writeNetwork && <EditProfile imsi={imsi} current={data.profile_name} />}
          {me?.can.writeNetwork && (
            <EditMsisdn imsi={imsi} profile={data.profile_name} current={data.msisdn} />
          )}
          <Title order={2} size="h4">
            Sessions
          </Title>
          {data.sessions.length === 0 ? (
            <Text c="dimmed">No sessions.</Text>
          ) : (
            <Table.ScrollContainer minWidth={600}>
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>ID</Table.Th>
                    <Table.Th>Data network</Table.Th>
                    <Table.Th>Slice</Table.Th>
                    <Table.Th>IPv4</Table.Th>
                    <Table.Th>AMBR up/down</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.sessions.map((session) => (
                    <Table.Tr key={session.id}>
                      <Table.Td>{session.id}</Table.Td>
                      <Table.Td>{session.data_network}</Table.Td>
                      <Table.Td>
                        {session.slice.sst}
                        {session.slice.sd ? `/${session.slice.sd}` : ''}
                      </Table.Td>
                      <Table.Td>{session.ipv4_address}</Table.Td>
                      <Table.Td>
                        {session.ambr_uplink} / {session.ambr_downlink}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          <Suspense fallback={null}>
            <SubscriberMessages imsi={imsi} canSend={me?.can.writeNetwork ?? false} />
          </Suspense>
          <SubscriberTimeline imsi={imsi} />
          {me?.can.readCredentials && (
            <Card withBorder>
              <Stack>
                <Title order={2} size="h4">
                  Credentials
                </Title>
                <Text size="sm">
                  Revealing the key and OPc writes an entry in the audit log under your name.
                </Text>
                {credentials.data ? (
                  <Alert color="yellow" title="Credentials">
                    <Stack gap={4}>
                      <Text>
                        Key: <Code>{credentials.data.key}</Code>
                      </Text>
                      <Text>
                        OPc: <Code>{credentials.data.opc}</Code>
                      </Text>
                      <Text>
                        Sequence number: <Code>{credentials.data.sequenceNumber}</Code>
                      </Text>
                    </Stack>
                  </Alert>
                ) : (
                  <Group>
                    <Button
                      variant="outline"
                      loading={credentials.isPending}
                      onClick={() => credentials.mutate()}
                    >
                      Reveal credentials
                    </Button>
                  </Group>
                )}
                <ErrorAlert error={credentials.error} />
              </Stack>
            </Card>
          )}
        </>
      )}
    </Stack>
  );
}
