import { Badge, Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { api, result } from '../../api/client.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Pager } from '../../components/pager.tsx';
import { PER_PAGE } from '../../components/resource-page.tsx';
import { useRefreshInterval } from '../../components/preferences.ts';
import { Time } from '../../components/time.tsx';
import { DownloadCapture } from '../records/download-capture.tsx';

/** The RAN nodes connected now (they come and go with their N2 association). */
export function RadiosPage() {
  const [page, setPage] = useState(1);
  const radios = useQuery({
    queryKey: ['radios', page],
    queryFn: () => result(api.GET('/api/v1/ran/radios', { params: { query: { page, per_page: PER_PAGE } } })),
    placeholderData: keepPreviousData,
    refetchInterval: useRefreshInterval(10_000),
  });
  return (
    <Stack>
      <Title order={1} size="h3">
        Radios
      </Title>
      <Text size="sm" c="dimmed">
        Radios connected now. A radio is accepted when it serves the operator's PLMN and one of its tracking
        areas.
      </Text>
      <ErrorAlert error={radios.error} />
      <Table.ScrollContainer minWidth={600}>
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>ID</Table.Th>
              <Table.Th>Address</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {radios.data?.items.map((radio) => (
              <Table.Tr key={radio.id}>
                <Table.Td>
                  <Link to={`/radios/${encodeURIComponent(radio.name)}`}>{radio.name}</Link>
                </Table.Td>
                <Table.Td>{radio.id}</Table.Td>
                <Table.Td>{radio.address}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {radios.data?.items.length === 0 && <Text c="dimmed">No radio is connected.</Text>}
      {radios.data && (
        <Pager page={page} perPage={PER_PAGE} total={radios.data.total_count} onChange={setPage} />
      )}
    </Stack>
  );
}

function Field({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text>{value || '—'}</Text>
    </div>
  );
}

export function RadioPage() {
  const { name = '' } = useParams();
  const radio = useQuery({
    queryKey: ['radios', 'one', name],
    queryFn: () => result(api.GET('/api/v1/ran/radios/{name}', { params: { path: { name } } })),
    refetchInterval: useRefreshInterval(10_000),
  });
  const data = radio.data;
  return (
    <Stack>
      <Text size="sm">
        <Link to="/radios">Radios</Link> / {name}
      </Text>
      <Title order={1} size="h3">
        Radio {name}
      </Title>
      <ErrorAlert error={radio.error} />
      {data && (
        <>
          <Card withBorder>
            <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }}>
              <Field label="ID" value={data.id} />
              <Field label="Type" value={data.ran_node_type} />
              <Field label="Address" value={data.address} />
              <Field label="Connected at" value={data.connected_at && <Time value={data.connected_at} />} />
              <Field label="Last seen" value={data.last_seen_at && <Time value={data.last_seen_at} />} />
            </SimpleGrid>
          </Card>
          <Group>
            <Link to={`/subscribers?radio=${encodeURIComponent(data.name)}`}>Subscribers on this radio</Link>
            <Link to={`/logs/radio?ran_id=${encodeURIComponent(data.id)}`}>Its radio logs</Link>
            <Link to={`/radio-events?radio=${encodeURIComponent(data.name)}`}>Its radio events</Link>
          </Group>
          <DownloadCapture query={{ radio: data.name }} filename={`radio-events-${data.name}.pcapng`} />
          <Title order={2} size="h4">
            Tracking areas and slices
          </Title>
          <Table.ScrollContainer minWidth={500}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>PLMN</Table.Th>
                  <Table.Th>TAC</Table.Th>
                  <Table.Th>Slices (SST/SD)</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.supported_tais.map((tai) => (
                  <Table.Tr key={`${tai.tai.plmnID.mcc}${tai.tai.plmnID.mnc}${tai.tai.tac}`}>
                    <Table.Td>
                      {tai.tai.plmnID.mcc}-{tai.tai.plmnID.mnc}
                    </Table.Td>
                    <Table.Td>{tai.tai.tac}</Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        {tai.snssais.map((slice) => (
                          <Badge key={`${slice.sst}/${slice.sd ?? ''}`} variant="light">
                            {slice.sst}
                            {slice.sd ? `/${slice.sd}` : ''}
                          </Badge>
                        ))}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
    </Stack>
  );
}
