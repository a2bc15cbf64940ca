import { Box } from '@mantine/core';
import {
  Bar,
  BarChart as Chart,
  CartesianGrid,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';

export interface Series {
  key: string;
  label: string;
  color: string;
}

/**
 * A bar chart (recharts) of rows keyed by `x`. Axis text takes the page's text colour, so it reads in light
 * and dark; `stacked` piles the series (uplink over downlink). The figure carries a label for screen
 * readers, and the pages show the same figures in a table.
 */
export function BarChart(props: {
  label: string;
  data: readonly object[];
  /** The rows' member the bars stand on. */
  x: string;
  series: readonly Series[];
  stacked?: boolean;
  format?: (value: number) => string;
  height?: number;
}) {
  const format = props.format ?? ((value: number) => value.toLocaleString());
  return (
    <Box role="img" aria-label={props.label} h={props.height ?? 260} c="var(--mantine-color-text)">
      <ResponsiveContainer width="100%" height="100%">
        <Chart data={[...props.data]} margin={{ top: 8, right: 8, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
          <XAxis dataKey={props.x} tick={{ fill: 'currentColor', fontSize: 12 }} />
          <YAxis tickFormatter={format} tick={{ fill: 'currentColor', fontSize: 12 }} width={72} />
          <Tooltip
            formatter={(value) => format(Number(value))}
            contentStyle={{ background: 'var(--mantine-color-body)', color: 'var(--mantine-color-text)' }}
            // Recharts writes each item's name in its series' colour, too faint on the body (WCAG 1.4.3).
            itemStyle={{ color: 'var(--mantine-color-text)' }}
          />
          {props.series.length > 1 && <Legend />}
          {props.series.map((series) => (
            <Bar
              key={series.key}
              dataKey={series.key}
              name={series.label}
              fill={series.color}
              stackId={props.stacked ? 'stack' : undefined}
              isAnimationActive={false}
            />
          ))}
        </Chart>
      </ResponsiveContainer>
    </Box>
  );
}
