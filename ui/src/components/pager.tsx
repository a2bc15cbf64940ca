import { Group, Pagination, Text } from '@mantine/core';

/** Server-side pagination under a list: the page buttons and which rows of how many are shown. */
export function Pager(props: {
  page: number;
  perPage: number;
  total: number;
  onChange: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(props.total / props.perPage));
  const first = props.total === 0 ? 0 : (props.page - 1) * props.perPage + 1;
  const last = Math.min(props.total, props.page * props.perPage);
  return (
    <Group justify="space-between" mt="sm">
      <Text size="sm" c="dimmed">
        {first}–{last} of {props.total}
      </Text>
      <Pagination total={pages} value={props.page} onChange={props.onChange} size="sm" />
    </Group>
  );
}
