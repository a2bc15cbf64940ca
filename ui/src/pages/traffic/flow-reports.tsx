import {
  Button,
  Card,
  Group,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, result } from '../../api/client.ts';
import { useMe } from '../../auth/use-me.ts';
import { BarChart } from '../../components/bar-chart.tsx';
import { flowGroupPoints, formatBytes, protocolName } from '../../components/chart-data.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { filterQuery, type FilterSpec } from '../../components/filter-query.ts';
import { Pager } from '../../components/pager.tsx';
import { PER_PAGE } from '../../components/resource-page.tsx';
import { usePreferences } from '../../components/preferences.ts';
import { Time } from '../../components/time.tsx';

const FILTERS: FilterSpec[] = [
  { name: 'subscriber_id', label: 'Subscriber (IMSI)', kind: 'text' },
  { name: 'protocol', label: 'Protocol number', kind: 'text' },
  { name: 'source', label: 'Source', kind: 'text' },
  { name: 'destination', label: 'Destination', kind: 'text' },
  { name: 'start', label: 'From day', kind: 'date' },
  { name: 'end', label: 'To day', kind: 'date' },
  { name: 'direction', label: 'Direction', kind: 'select', options: ['uplink', 'downlink'] },
  { name: 'action', label: 'Action', kind: 'select', options: ['allow', 'drop'] },
];

type Grouping = 'none' | 'day' | 'subscriber';
type FlowReportsAnswer = Awaited<ReturnType<typeof listFlowReports>>;

function listFlowReports(query: Record<string, string | number>) {
  return result(api.GET('/api/v1/flow-reports', { params: { query } }));
}

function Stats({ filters }: { filters: Record<string, string> }) {
  const stats = useQuery({
    queryKey: ['flow-reports', 'stats', filters],
    queryFn: () => result(api.GET('/api/v1/flow-reports/stats', { params: { query: filters } })),
    placeholderData: keepPreviousData,
  });
  const protocols =
    stats.data?.protocols.map((item) => ({ protocol: protocolName(item.protocol), count: item.count })) ?? [];
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <ErrorAlert error={stats.error} />
      <Card withBorder>
        <Title order={2} size="h5">
          Flows by protocol
        </Title>
        <BarChart
          label="Flows by protocol"
          data={protocols}
          x="protocol"
          series={[{ key: 'count', label: 'Flows', color: '#228be6' }]}
        />
      </Card>
      <Card withBorder>
        <Title order={2} size="h5">
          Top uplink destinations
        </Title>
        <BarChart
          label="Top uplink destinations"
          data={stats.data?.top_destinations_uplink ?? []}
          x="ip"
          series={[{ key: 'count', label: 'Flows', color: '#12b886' }]}
        />
      </Card>
    </SimpleGrid>
  );
}

function Grouped({ answer }: { answer: FlowReportsAnswer }) {
  if (!Array.isArray(answer)) return null;
  const points = flowGroupPoints(answer);
  return (
    <Stack>
      <BarChart
        label="Bytes per group"
        data={points}
        x="key"
        series={[{ key: 'bytes', label: 'Bytes', color: '#7950f2' }]}
        format={formatBytes}
      />
      <Table.ScrollContainer minWidth={500}>
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Group</Table.Th>
              <Table.Th>Flows</Table.Th>
              <Table.Th>Packets</Table.Th>
              <Table.Th>Bytes</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {points.map((point) => (
              <Table.Tr key={point.key}>
                <Table.Td>{point.key}</Table.Td>
                <Table.Td>{point.flows}</Table.Td>
                <Table.Td>{point.packets}</Table.Td>
                <Table.Td>{formatBytes(point.bytes)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {points.length === 0 && <Text c="dimmed">No flow reports match.</Text>}
    </Stack>
  );
}

/** Flow reports: the filters the service applies, a page of reports or their groups, and their stats as charts. */
export function FlowReportsPage() {
  const me = useMe();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Record<string, string>>({});
  const [grouping, setGrouping] = useState<Grouping>('none');
  const [page, setPage] = useState(1);
  const { zone } = usePreferences();
  const filters = filterQuery(FILTERS, values, zone);
  const query =
    grouping === 'none' ? { ...filters, page, per_page: PER_PAGE } : { ...filters, group_by: grouping };
  const reports = useQuery({
    queryKey: ['flow-reports', query],
    queryFn: () => listFlowReports(query),
    placeholderData: keepPreviousData,
  });
  const clear = useMutation({
    mutationFn: () => result(api.DELETE('/api/v1/flow-reports')),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['flow-reports'] }),
  });
  const set = (name: string, value: string) => {
    setValues({ ...values, [name]: value });
    setPage(1);
  };
  const data = reports.data;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h3">
          Flow reports
        </Title>
        {me?.can.writeRecords && (
          <Button
            color="red"
            variant="outline"
            loading={clear.isPending}
            onClick={() => {
              if (window.confirm('Delete every flow report?')) clear.mutate();
            }}
          >
            Clear all
          </Button>
        )}
      </Group>
      <Text size="sm" c="dimmed">
        Without dates, the last 7 days. Source and destination take IP, IP:port, [IPv6]:port or :port.
      </Text>
      <Group align="flex-end" role="search" aria-label="Filter flow reports">
        {FILTERS.map((filter) =>
          filter.kind === 'select' ? (
            <Select
              key={filter.name}
              label={filter.label}
              data={filter.options ?? []}
              clearable
              w={140}
              value={values[filter.name] || null}
              onChange={(value) => set(filter.name, value ?? '')}
            />
          ) : (
            <TextInput
              key={filter.name}
              label={filter.label}
              type={filter.kind === 'date' ? 'date' : 'text'}
              w={filter.kind === 'date' ? 160 : 180}
              value={values[filter.name] ?? ''}
              onChange={(event) => set(filter.name, event.currentTarget.value)}
            />
          ),
        )}
      </Group>
      <ErrorAlert error={reports.error ?? clear.error} />
      <Stats filters={filters} />
      <Group>
        <Text size="sm" id="grouping-label">
          Show
        </Text>
        <SegmentedControl
          aria-labelledby="grouping-label"
          value={grouping}
          onChange={(value) =>
            setGrouping(value === 'day' ? 'day' : value === 'subscriber' ? 'subscriber' : 'none')
          }
          data={[
            { value: 'none', label: 'Reports' },
            { value: 'day', label: 'By day' },
            { value: 'subscriber', label: 'By subscriber' },
          ]}
        />
      </Group>
      {data && grouping !== 'none' && <Grouped answer={data} />}
      {data && grouping === 'none' && !Array.isArray(data) && (
        <>
          <Table.ScrollContainer minWidth={900}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>End</Table.Th>
                  <Table.Th>Subscriber</Table.Th>
                  <Table.Th>Source</Table.Th>
                  <Table.Th>Destination</Table.Th>
                  <Table.Th>Protocol</Table.Th>
                  <Table.Th>Direction</Table.Th>
                  <Table.Th>Action</Table.Th>
                  <Table.Th>Packets</Table.Th>
                  <Table.Th>Bytes</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.items.map((report) => (
                  <Table.Tr key={report.id}>
                    <Table.Td>
                      <Time value={report.end_time} />
                    </Table.Td>
                    <Table.Td>{report.subscriber_id}</Table.Td>
                    <Table.Td>
                      {report.source_ip}:{report.source_port}
                    </Table.Td>
                    <Table.Td>
                      {report.destination_ip}:{report.destination_port}
                    </Table.Td>
                    <Table.Td>{protocolName(report.protocol)}</Table.Td>
                    <Table.Td>{report.direction}</Table.Td>
                    <Table.Td>{report.action}</Table.Td>
                    <Table.Td>{report.packets}</Table.Td>
                    <Table.Td>{formatBytes(report.bytes)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {data.items.length === 0 && <Text c="dimmed">No flow reports match.</Text>}
          <Pager page={page} perPage={PER_PAGE} total={data.total_count} onChange={setPage} />
        </>
      )}
    </Stack>
  );
}
