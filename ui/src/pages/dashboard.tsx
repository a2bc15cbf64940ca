import { Badge, Card, SimpleGrid, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { api, ApiError, result } from '../api/client.ts';
import { useMe } from '../auth/use-me.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { appendSample, type LiveSample } from '../components/live-series.ts';
import { sampleValue } from '../components/prometheus-text.ts';
import { recentWarnings } from '../components/recent-warnings.ts';
import { useRefreshInterval } from '../components/preferences.ts';
import { Time } from '../components/time.tsx';

/** The latest page of each log the warnings are picked from (the API does not filter by level). */
const SCANNED = 100;
const CHART_HEIGHT = 220;
/** The samples outlive a visit to another page: they are kept in the query cache under this key. */
const SERIES_KEY = ['dashboard', 'live-series'];

const LiveCountsChart = lazy(async () => ({
  default: (await import('./dashboard-charts.tsx')).LiveCountsChart,
}));
const TrafficChart = lazy(async () => ({ default: (await import('./dashboard-charts.tsx')).TrafficChart }));

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

function ChartSection(props: { id: string; title: string; children: ReactNode }) {
  return (
    <Stack gap="xs" component="section" aria-labelledby={props.id}>
      <Title order={2} size="h4" id={props.id}>
        {props.title}
      </Title>
      <Suspense fallback={<Skeleton h={CHART_HEIGHT} />}>{props.children}</Suspense>
    </Stack>
  );
}

/** The registered and session counts of the metrics endpoint (Prometheus text). */
async function liveCounts(): Promise<LiveSample> {
  const answer = await api.GET('/api/v1/metrics', { parseAs: 'text' }).catch(() => {
    throw new ApiError(0, 'the service is unreachable');
  });
  const text = answer.data;
  if (typeof text !== 'string') throw new ApiError(answer.response.status, 'no metrics');
  const registered = sampleValue(text, 'pmn_subscribers_registered');
  const sessions = sampleValue(text, 'pmn_sessions_active');
  if (registered === undefined || sessions === undefined) {
    throw new ApiError(answer.response.status, 'the metrics lack the registration and session counts');
  }
  return { at: Date.now(), registered, sessions };
}

export function DashboardPage() {
  const me = useMe();
  const queryClient = useQueryClient();
  // Live figures, refreshed every 10 seconds unless paused: what the network side reports as it arrives.
  const LIVE = { refetchInterval: useRefreshInterval(10_000) };
  const radios = useQuery({
    queryKey: ['radios', 'count'],
    queryFn: () => result(api.GET('/api/v1/ran/radios', { params: { query: { per_page: 1 } } })),
    ...LIVE,
  });
  const subscribers = useQuery({
    queryKey: ['subscribers', 'count'],
    queryFn: () => result(api.GET('/api/v1/subscribers', { params: { query: { per_page: 1 } } })),
    ...LIVE,
  });
  const counts = useQuery({ queryKey: ['metrics', 'live-counts'], queryFn: liveCounts, ...LIVE });
  const series = useQuery<LiveSample[]>({
    queryKey: SERIES_KEY,
    queryFn: () => [],
    initialData: [],
    staleTime: Infinity,
    gcTime: Infinity,
  });
  useEffect(() => {
    const sample = counts.data;
    if (sample) queryClient.setQueryData<LiveSample[]>(SERIES_KEY, (old) => appendSample(old ?? [], sample));
  }, [counts.data, queryClient]);
  const radioLogs = useQuery({
    queryKey: ['radio-logs', 'recent'],
    queryFn: () => result(api.GET('/api/v1/logs/radio', { params: { query: { per_page: SCANNED } } })),
    ...LIVE,
  });
  const readAudit = me?.can.readAudit ?? false;
  const auditLogs = useQuery({
    queryKey: ['audit-logs', 'recent'],
    queryFn: () => result(api.GET('/api/v1/logs/audit', { params: { query: { per_page: SCANNED } } })),
    enabled: readAudit,
    ...LIVE,
  });
  const events = useQuery({
    queryKey: ['radio-events', 'recent'],
    queryFn: () => result(api.GET('/api/v1/ran/events', { params: { query: { per_page: 10 } } })),
    ...LIVE,
  });
  const warnings = recentWarnings(radioLogs.data?.items ?? [], auditLogs.data?.items ?? []);
  const warningsLoaded = radioLogs.data !== undefined && (!readAudit || auditLogs.data !== undefined);
  return (
    <Stack>
      <Title order={1} size="h3">
        Dashboard
      </Title>
      <ErrorAlert error={radios.error ?? subscribers.error ?? counts.error} />
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Figure label="Connected radios" value={radios.data?.total_count} />
        <Figure label="Subscribers" value={subscribers.data?.total_count} />
        <Figure label="Registered subscribers" value={counts.data?.registered} />
        <Figure label="Active sessions" value={counts.data?.sessions} />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <ChartSection id="live-title" title="Live registrations and sessions">
          <LiveCountsChart live={series.data} height={CHART_HEIGHT} />
        </ChartSection>
        <ChartSection id="traffic-title" title="Traffic per day, last 7 days">
          <TrafficChart height={CHART_HEIGHT} />
        </ChartSection>
      </SimpleGrid>
      <Stack gap="xs" component="section" aria-labelledby="warnings-title">
        <Title order={2} size="h4" id="warnings-title">
          Recent warnings
        </Title>
        <Text size="sm" c="dimmed">
          Warnings and errors among the latest {SCANNED} radio logs{readAudit ? ' and audit logs' : ''}.
        </Text>
        <ErrorAlert error={radioLogs.error ?? auditLogs.error} />
        {warnings.length > 0 && (
          <Table.ScrollContainer minWidth={500}>
            <Table striped aria-labelledby="warnings-title">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Time</Table.Th>
                  <Table.Th>Level</Table.Th>
                  <Table.Th>Source</Table.Th>
                  <Table.Th>From</Table.Th>
                  <Table.Th>What</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {warnings.map((warning) => (
                  <Table.Tr key={warning.id}>
                    <Table.Td>
                      <Time value={warning.timestamp} />
                    </Table.Td>
                    <Table.Td>
                      <Badge color={warning.level === 'error' ? 'red' : 'yellow'} variant="light">
                        {warning.level}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{warning.source}</Table.Td>
                    <Table.Td>{warning.subject}</Table.Td>
                    <Table.Td>{warning.what}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {warningsLoaded && warnings.length === 0 && <Text c="dimmed">No recent warnings.</Text>}
      </Stack>
      <Stack gap="xs" component="section" aria-labelledby="events-title">
        <Title order={2} size="h4" id="events-title">
          Recent radio events
        </Title>
        <Table.ScrollContainer minWidth={500}>
          <Table striped aria-labelledby="events-title">
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
                  <Table.Td>
                    <Time value={event.timestamp} />
                  </Table.Td>
                  <Table.Td>{event.protocol}</Table.Td>
                  <Table.Td>{event.message_type}</Table.Td>
                  <Table.Td>{event.direction}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <ErrorAlert error={events.error} />
        {events.data?.items.length === 0 && <Text c="dimmed">No radio events yet.</Text>}
      </Stack>
    </Stack>
  );
}
