import {
  Anchor,
  Badge,
  Card,
  List,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { Link } from 'react-router';
import { api, result } from '../api/client.ts';
import { useMe } from '../auth/use-me.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { appendSample, type LiveSample } from '../components/live-series.ts';
import { formatBytes } from '../components/chart-data.ts';
import { gettingStartedSteps, isEmptyNetwork, type Summary } from '../components/getting-started.ts';
import { recentWarnings } from '../components/recent-warnings.ts';
import { RECORD_KINDS, useLiveReload } from '../components/live-events.ts';
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

/** The steps from a new core to a device with a data session, while the network is empty. */
function GettingStarted({ summary, listeners }: { summary: Summary; listeners: string[] | undefined }) {
  return (
    <Card withBorder component="section" aria-labelledby="start-title">
      <Stack gap="xs">
        <Title order={2} size="h4" id="start-title">
          Getting started
        </Title>
        <List spacing="xs" listStyleType="none">
          {gettingStartedSteps(summary, listeners).map((step) => (
            <List.Item
              key={step.label}
              icon={
                <ThemeIcon size={20} radius="xl" color={step.done ? 'green' : 'gray'} aria-hidden>
                  {step.done ? '✓' : '·'}
                </ThemeIcon>
              }
            >
              <Anchor component={Link} to={step.to}>
                {step.label}
              </Anchor>
              {step.done ? ' (done)' : ''}
              <Text size="sm" c="dimmed">
                {step.hint}
              </Text>
            </List.Item>
          ))}
        </List>
      </Stack>
    </Card>
  );
}

type Health = Awaited<ReturnType<typeof readHealth>>;

/** The status with the health view (the caller is signed in, so the service adds it). */
function readHealth() {
  return result(api.GET('/api/v1/status'));
}

function duration(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  return days > 0 ? `${days} d ${hours} h` : hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min`;
}

/** The service's health in words: N2, the UPF, the database, the records queue, the uptime. */
function ServiceHealth({ health }: { health: Health }) {
  const rows: [string, string, boolean][] = [
    [
      'N2',
      health.n2?.running
        ? `${health.n2.transport ?? ''} on ${health.n2.listeners.join(', ')}`
        : 'not running: radios cannot connect',
      health.n2?.running ?? false,
    ],
    [
      'User plane',
      health.upf?.running
        ? `${health.upf.datapath ?? ''} datapath (${health.upf.reason ?? ''})`
        : 'not running: data sessions are refused',
      health.upf?.running ?? false,
    ],
    [
      'Database',
      health.database?.healthy
        ? `answering, ${formatBytes(health.database.size_bytes ?? 0)}`
        : 'not answering',
      health.database?.healthy ?? false,
    ],
    ['Records waiting to be written', String(health.records?.queue_depth ?? 0), true],
    ['Running for', `${duration(health.uptime_seconds ?? 0)}, version ${health.version}`, true],
  ];
  return (
    <Stack gap="xs" component="section" aria-labelledby="health-title">
      <Title order={2} size="h4" id="health-title">
        Service
      </Title>
      <Table aria-labelledby="health-title">
        <Table.Tbody>
          {rows.map(([label, value, good]) => (
            <Table.Tr key={label}>
              <Table.Th scope="row" w={220}>
                {label}
              </Table.Th>
              <Table.Td>
                {good ? (
                  value
                ) : (
                  <Badge color="yellow" variant="light">
                    {value}
                  </Badge>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

export function DashboardPage() {
  const me = useMe();
  const queryClient = useQueryClient();
  // Live figures, refreshed every 10 seconds unless paused: what the network side reports as it arrives.
  const LIVE = { refetchInterval: useRefreshInterval(10_000) };
  // The four counts in one small answer (GET /status/summary), not the whole metrics text.
  const summary = useQuery({
    queryKey: ['dashboard', 'summary'],
    queryFn: () => result(api.GET('/api/v1/status/summary')),
    ...LIVE,
  });
  const health = useQuery({ queryKey: ['dashboard', 'health'], queryFn: readHealth, ...LIVE });
  const series = useQuery<LiveSample[]>({
    queryKey: SERIES_KEY,
    queryFn: () => [],
    initialData: [],
    staleTime: Infinity,
    gcTime: Infinity,
  });
  useEffect(() => {
    const counts = summary.data;
    if (!counts) return;
    const sample = {
      at: summary.dataUpdatedAt,
      registered: counts.subscribers_registered,
      sessions: counts.sessions_active,
    };
    queryClient.setQueryData<LiveSample[]>(SERIES_KEY, (old) => appendSample(old ?? [], sample));
  }, [summary.data, summary.dataUpdatedAt, queryClient]);
  // The radio logs' and audit logs' warnings and the latest radio events reload as the live stream
  // carries new ones (audit entries only to the roles that read them).
  const radioLogs = useQuery({
    queryKey: ['radio-logs', 'recent'],
    queryFn: () => result(api.GET('/api/v1/logs/radio', { params: { query: { per_page: SCANNED } } })),
    refetchInterval: useLiveReload([['radio-logs', 'recent']], RECORD_KINDS.radioLogs),
  });
  // Rejects and failures of devices, known or not (their logs are `warn`): reloaded on those alone, as
  // every registration brings a burst of `info` messages.
  const subscriberLogs = useQuery({
    queryKey: ['subscriber-logs', 'recent'],
    queryFn: () => result(api.GET('/api/v1/logs/subscribers', { params: { query: { per_page: SCANNED } } })),
    refetchInterval: useLiveReload([['subscriber-logs', 'recent']], RECORD_KINDS.subscriberLogs, true, {
      warnings: true,
    }),
  });
  // What a refused SUCI's key is compared with (a device of no subscriber's warning says which it lacks).
  const homeNetworkKeys = useQuery({
    queryKey: ['operator', 'home-network-keys'],
    queryFn: () => result(api.GET('/api/v1/operator/home-network-keys')),
  });
  const readAudit = me?.can.readAudit ?? false;
  const auditLogs = useQuery({
    queryKey: ['audit-logs', 'recent'],
    queryFn: () => result(api.GET('/api/v1/logs/audit', { params: { query: { per_page: SCANNED } } })),
    enabled: readAudit,
    refetchInterval: useLiveReload([['audit-logs', 'recent']], RECORD_KINDS.auditLogs, readAudit),
  });
  const events = useQuery({
    queryKey: ['radio-events', 'recent'],
    queryFn: () => result(api.GET('/api/v1/ran/events', { params: { query: { per_page: 10 } } })),
    refetchInterval: useLiveReload([['radio-events', 'recent']], RECORD_KINDS.radioEvents),
  });
  const warnings = recentWarnings({
    radioLogs: radioLogs.data?.items ?? [],
    subscriberLogs: subscriberLogs.data?.items ?? [],
    auditLogs: auditLogs.data?.items ?? [],
    homeNetworkKeys: homeNetworkKeys.data,
  });
  const warningsLoaded =
    radioLogs.data !== undefined &&
    subscriberLogs.data !== undefined &&
    (!readAudit || auditLogs.data !== undefined);
  return (
    <Stack>
      <Title order={1} size="h3">
        Dashboard
      </Title>
      <ErrorAlert error={summary.error ?? health.error} />
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Figure label="Connected radios" value={summary.data?.radios_connected} />
        <Figure label="Subscribers" value={summary.data?.subscribers} />
        <Figure label="Registered subscribers" value={summary.data?.subscribers_registered} />
        <Figure label="Active sessions" value={summary.data?.sessions_active} />
      </SimpleGrid>
      {summary.data && isEmptyNetwork(summary.data) && (
        <GettingStarted summary={summary.data} listeners={health.data?.n2?.listeners} />
      )}
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
          Warnings and errors among the latest {SCANNED} radio logs, subscriber logs
          {readAudit ? ' and audit logs' : ''}.
        </Text>
        <ErrorAlert error={radioLogs.error ?? subscriberLogs.error ?? auditLogs.error} />
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
                      {/* Its own width: a narrow column would cut the level to an ellipsis. */}
                      <Badge
                        color={warning.level === 'error' ? 'red' : 'yellow'}
                        variant="light"
                        miw="max-content"
                      >
                        {warning.level}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{warning.source}</Table.Td>
                    <Table.Td>{warning.subject}</Table.Td>
                    <Table.Td>
                      {warning.what}
                      {warning.explanation && (
                        <Text size="sm" c="dimmed">
                          {warning.explanation}
                        </Text>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {warningsLoaded && warnings.length === 0 && <Text c="dimmed">No recent warnings.</Text>}
      </Stack>
      {health.data && <ServiceHealth health={health.data} />}
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
