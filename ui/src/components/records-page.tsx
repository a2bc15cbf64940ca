import {
  Autocomplete,
  Button,
  Group,
  Modal,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ErrorAlert } from './error-alert.tsx';
import { filterQuery, type FilterSpec } from './filter-query.ts';
import { Pager } from './pager.tsx';
import { useLiveReload } from './live-events.ts';
import { usePreferences, useRefreshInterval } from './preferences.ts';
import { zoneLabel } from './time-format.ts';
import { PER_PAGE, type Column } from './resource-page.tsx';

export interface RecordPage<T> {
  items: T[];
  total_count: number;
}

/**
 * A record list (radio events, logs): filters the service applies, server-side pages, a row's detail in a
 * dialog, and, for roles that may, clearing every record of the kind.
 */
export function RecordsPage<T extends { id: number }>(props: {
  title: string;
  queryKey: string;
  intro?: ReactNode;
  filters: readonly FilterSpec[];
  columns: readonly Column<T>[];
  list: (query: Record<string, string | number>) => Promise<RecordPage<T>>;
  detail?: (item: T) => ReactNode;
  /** The detail dialog's title: what the record is, where and when (by default its number). */
  titleOf?: (item: T) => string;
  /** Present when the role may clear these records. */
  clear?: () => Promise<unknown>;
  /** Actions on what the filters select (a capture download), shown beside the title. */
  actions?: (filters: Record<string, string>) => ReactNode;
  /**
   * The live event stream's kinds that carry these records (RECORD_KINDS): the list reloads as they
   * arrive, rather than every 10 s.
   */
  liveKinds?: readonly string[];
  /** Filter values to start with (a link from another page). */
  initial?: Record<string, string>;
}) {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [values, setValues] = useState<Record<string, string>>(props.initial ?? {});
  const [shown, setShown] = useState<T | undefined>();
  const { zone } = usePreferences();
  const filters = filterQuery(props.filters, values, zone);
  const query = { page, per_page: PER_PAGE, ...filters };
  const pollInterval = useRefreshInterval(10_000);
  const streamInterval = useLiveReload(
    [[props.queryKey]],
    props.liveKinds ?? [],
    props.liveKinds !== undefined,
  );
  const list = useQuery({
    queryKey: [props.queryKey, query],
    queryFn: () => props.list(query),
    placeholderData: keepPreviousData,
    refetchInterval: props.liveKinds ? streamInterval : pollInterval,
  });
  const clear = useMutation({
    mutationFn: () => props.clear?.() ?? Promise.resolve(),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [props.queryKey] }),
  });
  const set = (name: string, value: string) => {
    setValues({ ...values, [name]: value });
    setPage(1);
  };
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h3">
          {props.title}
        </Title>
        <Group>
          {props.actions?.(filters)}
          {props.clear && (
            <Button
              color="red"
              variant="outline"
              loading={clear.isPending}
              onClick={() => {
                if (window.confirm(`Delete every record of ${props.title.toLowerCase()}?`)) clear.mutate();
              }}
            >
              Clear all
            </Button>
          )}
        </Group>
      </Group>
      {props.intro}
      <Group align="flex-end" role="search" aria-label={`Filter ${props.title.toLowerCase()}`}>
        {props.filters.map((filter) =>
          filter.kind === 'select' ? (
            <Select
              key={filter.name}
              label={filter.label}
              data={filter.options ?? []}
              clearable
              value={values[filter.name] || null}
              onChange={(value) => set(filter.name, value ?? '')}
              w={160}
            />
          ) : filter.kind === 'suggest' ? (
            <Autocomplete
              key={filter.name}
              label={filter.label}
              data={filter.options ?? []}
              value={values[filter.name] ?? ''}
              onChange={(value) => set(filter.name, value)}
            />
          ) : (
            <TextInput
              key={filter.name}
              // A time is entered in the zone times are shown in, and the label says which.
              label={filter.kind === 'datetime' ? `${filter.label} (${zoneLabel(zone)})` : filter.label}
              type={filter.kind === 'datetime' ? 'datetime-local' : filter.kind === 'date' ? 'date' : 'text'}
              value={values[filter.name] ?? ''}
              onChange={(event) => set(filter.name, event.currentTarget.value)}
            />
          ),
        )}
      </Group>
      <ErrorAlert error={list.error ?? clear.error} />
      <Table.ScrollContainer minWidth={700}>
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              {props.columns.map((column) => (
                <Table.Th key={column.label}>{column.label}</Table.Th>
              ))}
              {props.detail && <Table.Th aria-label="Details" />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((item) => (
              <Table.Tr key={item.id}>
                {props.columns.map((column) => (
                  <Table.Td key={column.label}>{column.render(item)}</Table.Td>
                ))}
                {props.detail && (
                  <Table.Td>
                    <Button
                      size="xs"
                      variant="subtle"
                      aria-label={`Open record ${item.id}`}
                      onClick={() => setShown(item)}
                    >
                      Open
                    </Button>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data?.items.length === 0 && <Text c="dimmed">No records match.</Text>}
      {list.data && <Pager page={page} perPage={PER_PAGE} total={list.data.total_count} onChange={setPage} />}
      <Modal
        opened={shown !== undefined}
        onClose={() => setShown(undefined)}
        title={shown === undefined ? '' : (props.titleOf?.(shown) ?? `Record ${shown.id}`)}
        size={1200}
      >
        {shown && props.detail?.(shown)}
      </Modal>
    </Stack>
  );
}
