import { usePreferences } from './preferences.ts';
import { formatTime } from './time-format.ts';

/** A time as the operator chose to see times (UTC or local, the zone always shown); machine-readable too. */
export function Time({ value }: { value: string | number | null | undefined }) {
  const { zone } = usePreferences();
  if (value === null || value === undefined || value === '') return null;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) return <>{String(value)}</>;
  return <time dateTime={time.toISOString()}>{formatTime(time, zone)}</time>;
}

/** The same formatting as text (a dialog's title, a chart's axis). */
export function useFormatTime(): (value: string | number | Date) => string {
  const { zone } = usePreferences();
  return (value) => formatTime(value, zone);
}
