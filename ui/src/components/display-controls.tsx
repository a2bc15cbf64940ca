import { Button, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { useIsFetching, useQueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { setPreferences, usePreferences } from './preferences.ts';
import { Time } from './time.tsx';
import { zoneLabel } from './time-format.ts';

/** When the newest answer now shown arrived (0 before any). */
function useLastUpdate(): number {
  const cache = useQueryClient().getQueryCache();
  return useSyncExternalStore(
    (listener) => cache.subscribe(listener),
    () => cache.getAll().reduce((newest, query) => Math.max(newest, query.state.dataUpdatedAt), 0),
  );
}

/**
 * The pages' own refresh, made visible: whether it runs, when the shown figures arrived, and a button
 * to pause it (reading a table that moves is hard) or resume it.
 */
export function RefreshControl() {
  const { live } = usePreferences();
  const fetching = useIsFetching() > 0;
  const updated = useLastUpdate();
  return (
    <Group gap="xs" wrap="nowrap">
      <Text size="sm" visibleFrom="sm">
        {live ? (fetching ? 'Refreshing…' : 'Live') : 'Paused'}
        {updated > 0 && (
          <>
            {', updated '}
            <Time value={updated} />
          </>
        )}
      </Text>
      <Button size="xs" variant="default" onClick={() => setPreferences({ live: !live })}>
        {live ? 'Pause refresh' : 'Resume refresh'}
      </Button>
    </Group>
  );
}

/** How times are shown on every page: UTC, or the browser's zone (its offset named). */
export function ZoneControl() {
  const { zone } = usePreferences();
  return (
    <Stack gap={4}>
      <Text size="sm" id="zone-label">
        Times shown in
      </Text>
      <SegmentedControl
        aria-labelledby="zone-label"
        size="xs"
        value={zone}
        onChange={(value) => setPreferences({ zone: value === 'local' ? 'local' : 'utc' })}
        data={[
          { value: 'utc', label: 'UTC' },
          { value: 'local', label: `Local (${zoneLabel('local')})` },
        ]}
      />
    </Stack>
  );
}
