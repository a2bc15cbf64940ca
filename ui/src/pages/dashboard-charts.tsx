import { Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, result } from '../api/client.ts';
import { BarChart } from '../components/bar-chart.tsx';
import { formatBytes, usagePoints } from '../components/chart-data.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { LineChart } from '../components/line-chart.tsx';
import type { LiveSample } from '../components/live-series.ts';
import { useRefreshInterval } from '../components/preferences.ts';

// The dashboard's charts, loaded apart from the first page (recharts is large) into room the dashboard
// keeps for them at the same height, so nothing moves when they arrive.

/** Registered subscribers and active sessions as the dashboard sampled them. */
export function LiveCountsChart({ live, height }: { live: readonly LiveSample[]; height: number }) {
  return (
    <LineChart
      label="Registered subscribers and active sessions over time"
      data={live}
      x="at"
      height={height}
      series={[
        { key: 'registered', label: 'Registered subscribers', color: '#228be6' },
        { key: 'sessions', label: 'Active sessions', color: '#12b886' },
      ]}
    />
  );
}

/** Uplink over downlink bytes per day, the last 7 days (the usage API's default window). */
export function TrafficChart({ height }: { height: number }) {
  const usage = useQuery({
    queryKey: ['usage', { group_by: 'day' }],
    queryFn: () => result(api.GET('/api/v1/subscriber-usage', { params: { query: { group_by: 'day' } } })),
    refetchInterval: useRefreshInterval(60_000),
  });
  return (
    <Stack gap="xs">
      <ErrorAlert error={usage.error} />
      <BarChart
        label="Traffic per day"
        data={usagePoints(usage.data ?? [])}
        x="key"
        stacked
        format={formatBytes}
        height={height}
        series={[
          { key: 'uplink', label: 'Uplink', color: '#228be6' },
          { key: 'downlink', label: 'Downlink', color: '#12b886' },
        ]}
      />
    </Stack>
  );
}
