import { Card, SimpleGrid, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, result } from '../api/client.ts';
import { ErrorAlert } from '../components/error-alert.tsx';

/** Live figures, refreshed every 10 seconds: what the network side reports as it arrives. */
const LIVE = { refetchInterval: 10_000 };

function Figure({ label, value }: { label: string; value: number | undefined }) {
  return (
    <Card withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      {value === undefined ? (
        <Skeleton h={36} w={60} />
      ) : (
        <Text fz={28} fw={700}>
          {value}
        </Text>
      )}
    </Card>
  );
}

export function DashboardPage() {
  const radios = useQuery({
    queryKey: ['radios'],
    queryFn: () => result(api.GET('/api/v1/ran/radios', { params: { query: { per_page: 1 } } })),
    ...LIVE,
  });
  const subscribers = useQuery({
    queryKey: ['subscribers', 'count'],
    queryFn: () => result(api.GET('/api/v1/subscribers', { params: { query: { per_page: 1 } } })),
    ...LIVE,
  });
  const events = useQuery({
    queryKey: ['radio-events', 'recent'],
    queryFn: () => result(api.GET('/api/v1/ran/events', { params: { query: { per_page: 10 } } })),
    ...LIVE,
  });
  return (
    <Stack>
      <Title order={1} size="h3">
        Dashboard
      </Title>
      <ErrorAlert error={radios.error ?? subscribers.error ?? events.error} />
      <SimpleGrid cols={{ base: 1, xs: 2 }}>
        <Figure label="Connected radios" value={radios.data?.total_count} />
        <Figure label="Subscribers" value={subscribers.data?.total_count} />
      </SimpleGrid>
      <Title order={2} size="h4">
        Recent radio events
      </Title>
      <Table.ScrollContainer minWidth={500}>
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Time</Table.Th>
              <Table.Th>Protocol</Table.Th>
              <Table.Th>Message</Table.Th>
              <Table.Th>Direction</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {events.data?.items.map((event) => (
              <Table.Tr key={event.id}>
                <Table.Td>{event.timestamp}</Table.Td>
                <Table.Td>{event.protocol}</Table.Td>
                <Table.Td>{event.message_type}</Table.Td>
                <Table.Td>{event.direction}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {events.data?.items.length === 0 && <Text c="dimmed">No radio events yet.</Text>}
    </Stack>
  );
}
