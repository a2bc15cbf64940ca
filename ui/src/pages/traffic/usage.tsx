import { Button, Group, SegmentedControl, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, result } from '../../api/client.ts';
import { useMe } from '../../auth/use-me.ts';
import { BarChart } from '../../components/bar-chart.tsx';
import { formatBytes, usagePoints } from '../../components/chart-data.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { filterQuery, type FilterSpec } from '../../components/filter-query.ts';
import { usePreferences, useRefreshInterval } from '../../components/preferences.ts';

const FILTERS: FilterSpec[] = [
  { name: 'subscriber', label: 'Subscriber (IMSI)', kind: 'text' },
  { name: 'start', label: 'From day', kind: 'date' },
  { name: 'end', label: 'To day', kind: 'date' },
];

/** Subscriber usage per day or per subscriber, uplink over downlink. */
export function UsagePage() {
  const me = useMe();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Record<string, string>>({});
  const [groupBy, setGroupBy] = useState<'day' | 'subscriber'>('day');
  const { zone } = usePreferences();
  const query = { ...filterQuery(FILTERS, values, zone), group_by: groupBy };
  const usage = useQuery({
    queryKey: ['usage', query],
    queryFn: () => result(api.GET('/api/v1/subscriber-usage', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: useRefreshInterval(30_000),
  });
  const clear = useMutation({
    mutationFn: () => result(api.DELETE('/api/v1/subscriber-usage')),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['usage'] }),
  });
  const points = usagePoints(usage.data ?? []);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h3">
          Usage
        </Title>
        {me?.can.writeRecords && (
          <Button
            color="red"
            variant="outline"
            loading={clear.isPending}
            onClick={() => {
              if (window.confirm('Clear the usage of every subscriber?')) clear.mutate();
            }}
          >
            Clear all
          </Button>
        )}
      </Group>
      <Group align="flex-end" role="search" aria-label="Filter usage">
        {FILTERS.map((filter) => (
          <TextInput
            key={filter.name}
            label={filter.label}
            type={filter.kind === 'date' ? 'date' : 'text'}
            value={values[filter.name] ?? ''}
            onChange={(event) => setValues({ ...values, [filter.name]: event.currentTarget.value })}
          />
        ))}
        <SegmentedControl
          aria-label="Group by"
          value={groupBy}
          onChange={(value) => setGroupBy(value === 'subscriber' ? 'subscriber' : 'day')}
          data={[
            { value: 'day', label: 'Per day' },
            { value: 'subscriber', label: 'Per subscriber' },
          ]}
        />
      </Group>
      <Text size="sm" c="dimmed">
        Without dates, the last 7 days.
      </Text>
      <ErrorAlert error={usage.error ?? clear.error} />
      <BarChart
        label={groupBy === 'day' ? 'Usage per day' : 'Usage per subscriber'}
        data={points}
        x="key"
        stacked
        format={formatBytes}
        series={[
          { key: 'uplink', label: 'Uplink', color: '#228be6' },
          { key: 'downlink', label: 'Downlink', color: '#12b886' },
        ]}
      />
      <Table.ScrollContainer minWidth={500}>
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{groupBy === 'day' ? 'Day' : 'Subscriber'}</Table.Th>
              <Table.Th>Uplink</Table.Th>
              <Table.Th>Downlink</Table.Th>
              <Table.Th>Total</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {points.map((point) => (
              <Table.Tr key={point.key}>
                <Table.Td>{point.key}</Table.Td>
                <Table.Td>{formatBytes(point.uplink)}</Table.Td>
                <Table.Td>{formatBytes(point.downlink)}</Table.Td>
                <Table.Td>{formatBytes(point.total)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {usage.data && points.length === 0 && <Text c="dimmed">No usage in this period.</Text>}
    </Stack>
  );
}
