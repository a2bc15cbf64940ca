import { Box } from '@mantine/core';
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart as Chart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { Series } from './bar-chart.tsx';
import { usePreferences } from './preferences.ts';
import { formatTime } from './time-format.ts';

/**
 * A line chart (recharts) of rows keyed by a time in milliseconds: ticks show the clock time, the tooltip
 * the whole time with its zone, both in the zone the operator chose (components/time-format.ts).
 * Like the bar chart: axis text in the page's text colour, an accessible name, no animation.
 */
export function LineChart(props: {
  label: string;
  data: readonly object[];
  /** The rows' member holding the time. */
  x: string;
  series: readonly Series[];
  height?: number;
}) {
  const { zone } = usePreferences();
  // `YYYY-MM-DD HH:MM:SS.mmm ZONE`: the tick keeps the clock, HH:MM:SS.
  const clock = (ms: number) => formatTime(ms, zone).slice(11, 19);
  return (
    <Box role="img" aria-label={props.label} h={props.height ?? 220} c="var(--mantine-color-text)">
      <ResponsiveContainer width="100%" height="100%">
        <Chart data={[...props.data]} margin={{ top: 8, right: 8, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
          <XAxis
            dataKey={props.x}
            type="number"
            scale="time"
            domain={['dataMin', 'dataMax']}
            tickFormatter={clock}
            tick={{ fill: 'currentColor', fontSize: 12 }}
          />
          <YAxis allowDecimals={false} tick={{ fill: 'currentColor', fontSize: 12 }} width={48} />
          <Tooltip
            labelFormatter={(value) => formatTime(Number(value), zone)}
            contentStyle={{ background: 'var(--mantine-color-body)', color: 'var(--mantine-color-text)' }}
            // Recharts writes each item's name in its series' colour, too faint on the body (WCAG 1.4.3).
            itemStyle={{ color: 'var(--mantine-color-text)' }}
          />
          <Legend />
          {props.series.map((series) => (
            <Line
              key={series.key}
              dataKey={series.key}
              name={series.label}
              stroke={series.color}
              type="stepAfter"
              dot={{ r: 2 }}
              isAnimationActive={false}
            />
          ))}
        </Chart>
      </ResponsiveContainer>
    </Box>
  );
}
