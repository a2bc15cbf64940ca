import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, result } from '../../api/client.ts';
import type { JsonBody } from '../../api/bodies.ts';
import { useMe } from '../../auth/use-me.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { errorsOf } from '../../components/field-error.ts';
import type { FieldSpec } from '../../components/form-values.ts';
import { ResourcePage } from '../../components/resource-page.tsx';
import { useRefreshInterval } from '../../components/preferences.ts';
import { Time } from '../../components/time.tsx';

const CELL_FIELDS: FieldSpec[] = [
  { name: 'rat', label: 'Radio access', kind: 'select', required: true, options: ['nr', 'eutra'] },
  { name: 'mcc', label: 'MCC', kind: 'text', required: true },
  { name: 'mnc', label: 'MNC', kind: 'text', required: true },
  {
    name: 'cell_identity',
    label: 'Cell identity',
    kind: 'text',
    required: true,
    description: 'Hexadecimal: 9 digits (NR cell identity) or 7 (E-UTRA)',
  },
  { name: 'gnb_id', label: 'gNB ID', kind: 'text', description: 'Hexadecimal, optional' },
  {
    name: 'latitude',
    label: 'Latitude',
    kind: 'number',
    required: true,
    description: 'WGS-84 degrees, -90 to 90',
  },
  {
    name: 'longitude',
    label: 'Longitude',
    kind: 'number',
    required: true,
    description: 'WGS-84 degrees, -180 to 180',
  },
  { name: 'altitude', label: 'Altitude (m)', kind: 'number' },
  { name: 'uncertainty_semi_major', label: 'Uncertainty, semi-major axis (m)', kind: 'number' },
  { name: 'uncertainty_semi_minor', label: 'Uncertainty, semi-minor axis (m)', kind: 'number' },
  { name: 'orientation_major', label: 'Orientation of the major axis (degrees)', kind: 'integer' },
  { name: 'confidence', label: 'Confidence (%)', kind: 'integer' },
];

const STATUS = ['active', 'completed', 'failed', 'cancelled'];
const SESSION_TYPE = ['immediate', 'periodic', 'triggered'];
type Method = 'cell_id' | 'ecid' | 'gnss';
type RequestType = 'immediate' | 'periodic' | 'triggered';

function CellPositions() {
  const me = useMe();
  return (
    <ResourcePage
      title="Cell positions"
      noun="cell position"
      queryKey="cell-positions"
      intro={
        <Text size="sm" c="dimmed">
          Where each cell is: Cell ID positioning answers the serving cell's position.
        </Text>
      }
      columns={[
        { label: 'Radio access', render: (cell) => cell.rat },
        { label: 'PLMN', render: (cell) => `${cell.mcc}-${cell.mnc}` },
        { label: 'Cell identity', render: (cell) => cell.cell_identity },
        { label: 'Latitude', render: (cell) => cell.latitude },
        { label: 'Longitude', render: (cell) => cell.longitude },
        { label: 'Uncertainty (m)', render: (cell) => cell.uncertainty_semi_major ?? '—' },
      ]}
      keyOf={(cell) => cell.id}
      fields={CELL_FIELDS}
      canWrite={me?.can.writeLocation ?? false}
      list={async () => ({ items: await result(api.GET('/api/beta/cell-positions')) })}
      create={(body) =>
        result(
          api.POST('/api/beta/cell-positions', {
            body: body as JsonBody<'/api/beta/cell-positions', 'post'>,
          }),
        )
      }
      update={(id, body) =>
        result(
          api.PUT('/api/beta/cell-positions/{id}', {
            params: { path: { id } },
            body: body as JsonBody<'/api/beta/cell-positions/{id}', 'put'>,
          }),
        )
      }
      remove={async (id) => {
        const answer = await api.DELETE('/api/beta/cell-positions/{id}', { params: { path: { id } } });
        if (!answer.response.ok)
          throw new Error(answer.error?.error ?? `the service answered ${answer.response.status}`);
      }}
    />
  );
}

function Locate({ onSessions }: { onSessions: (imsi: string) => void }) {
  const queryClient = useQueryClient();
  const [imsi, setImsi] = useState('');
  const [method, setMethod] = useState<Method>('cell_id');
  const [requestType, setRequestType] = useState<RequestType>('immediate');
  const locate = useMutation({
    mutationFn: async () => {
      const answer = await api.POST('/api/beta/location', {
        body: { request_type: requestType, supi: `imsi-${imsi.trim()}`, method },
      });
      if (answer.error !== undefined || !answer.data) {
        throw new Error(answer.error?.error ?? `the service answered ${answer.response.status}`);
      }
      return answer.data.result;
    },
    onSuccess: () => {
      onSessions(imsi.trim());
      return queryClient.invalidateQueries({ queryKey: ['positioning-sessions'] });
    },
  });
  const errors = errorsOf(locate.error, ['supi', 'method', 'request_type']);
  const answer = locate.data;
  return (
    <Card withBorder component="section" aria-labelledby="locate-title">
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          locate.mutate();
        }}
      >
        <Stack>
          <Title order={2} size="h4" id="locate-title">
            Locate a subscriber
          </Title>
          <Group align="flex-start">
            <TextInput
              label="IMSI"
              required
              value={imsi}
              error={errors.of('supi')}
              onChange={(event) => setImsi(event.currentTarget.value)}
            />
            <Select
              label="Method"
              allowDeselect={false}
              value={method}
              error={errors.of('method')}
              data={[
                { value: 'cell_id', label: 'Cell ID' },
                { value: 'ecid', label: 'Enhanced Cell ID' },
                { value: 'gnss', label: 'GNSS' },
              ]}
              onChange={(value) => setMethod(value === 'ecid' || value === 'gnss' ? value : 'cell_id')}
            />
            <Select
              label="Request"
              allowDeselect={false}
              value={requestType}
              data={[
                { value: 'immediate', label: 'Now' },
                { value: 'periodic', label: 'Periodic session' },
                { value: 'triggered', label: 'On cell change' },
              ]}
              onChange={(value) =>
                setRequestType(value === 'periodic' || value === 'triggered' ? value : 'immediate')
              }
            />
            <Button type="submit" mt={25} loading={locate.isPending}>
              Locate
            </Button>
          </Group>
          <ErrorAlert error={errors.form} title="Not located" />
          {answer && 'locationEstimate' in answer && (
            <Alert color="green" title="Position">
              <SimpleGrid cols={{ base: 1, xs: 3 }}>
                <Text>
                  Latitude <Code>{answer.locationEstimate.point.lat}</Code>
                </Text>
                <Text>
                  Longitude <Code>{answer.locationEstimate.point.lon}</Code>
                </Text>
                <Text>
                  Uncertainty <Code>{answer.locationEstimate.uncertainty} m</Code>
                </Text>
              </SimpleGrid>
              <Text size="sm" mt="xs">
                {answer.positioningDataList.map((item) => `${item.method} (${item.mode})`).join(', ')}
                {answer.ncgi && ` · NR cell ${answer.ncgi.nrCellId}`}
              </Text>
            </Alert>
          )}
          {answer && 'id' in answer && <Alert color="green">Positioning session {answer.id} started.</Alert>}
        </Stack>
      </form>
    </Card>
  );
}

function Sessions({ imsi, canWrite }: { imsi: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const sessions = useQuery({
    queryKey: ['positioning-sessions', imsi],
    queryFn: () =>
      result(api.GET('/api/beta/positioning/sessions', { params: { query: { supi: `imsi-${imsi}` } } })),
    enabled: imsi !== '',
    refetchInterval: useRefreshInterval(10_000),
  });
  const cancel = useMutation({
    mutationFn: async (id: string) => {
      const answer = await api.DELETE('/api/beta/positioning/sessions/{id}', { params: { path: { id } } });
      if (!answer.response.ok)
        throw new Error(answer.error?.error ?? `the service answered ${answer.response.status}`);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['positioning-sessions'] }),
  });
  if (imsi === '') return null;
  return (
    <Stack>
      <Title order={2} size="h4">
        Positioning sessions of {imsi}
      </Title>
      <ErrorAlert error={sessions.error ?? cancel.error} />
      <Table.ScrollContainer minWidth={600}>
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>ID</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>Method</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Updated</Table.Th>
              {canWrite && <Table.Th aria-label="Actions" />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {sessions.data?.map((session) => (
              <Table.Tr key={session.id}>
                <Table.Td>
                  <Code>{session.id}</Code>
                </Table.Td>
                <Table.Td>{SESSION_TYPE[session.session_type] ?? session.session_type}</Table.Td>
                <Table.Td>{session.method}</Table.Td>
                <Table.Td>
                  <Badge color={session.status === 0 ? 'green' : 'gray'}>
                    {STATUS[session.status] ?? session.status}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Time value={session.updated_at * 1000} />
                </Table.Td>
                {canWrite && (
                  <Table.Td>
                    {session.status === 0 && (
                      <Button
                        size="xs"
                        variant="subtle"
                        color="red"
                        aria-label={`Cancel session ${session.id}`}
                        onClick={() => cancel.mutate(session.id)}
                      >
                        Cancel
                      </Button>
                    )}
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {sessions.data?.length === 0 && <Text c="dimmed">No positioning sessions.</Text>}
    </Stack>
  );
}

/** Location (beta API): cell positions, locating a subscriber, and its positioning sessions. */
export function LocationPage() {
  const me = useMe();
  const [imsi, setImsi] = useState('');
  const [lookup, setLookup] = useState('');
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        Beta: these pages follow the service's /api/beta location API, which may change.
      </Text>
      <CellPositions />
      {me?.can.writeLocation && <Locate onSessions={setImsi} />}
      <Group align="flex-end">
        <TextInput
          label="Sessions of IMSI"
          value={lookup}
          onChange={(event) => setLookup(event.currentTarget.value)}
        />
        <Button variant="default" onClick={() => setImsi(lookup.trim())}>
          Show sessions
        </Button>
      </Group>
      <Sessions imsi={imsi} canWrite={me?.can.writeLocation ?? false} />
    </Stack>
  );
}
