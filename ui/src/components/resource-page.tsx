import { Button, Group, Modal, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { EntityForm } from './entity-form.tsx';
import { ErrorAlert } from './error-alert.tsx';
import type { Body, FieldSpec } from './form-values.ts';
import { Pager } from './pager.tsx';

export const PER_PAGE = 25;

export interface Column<T> {
  label: string;
  render: (item: T) => ReactNode;
}

/** One page of a list: paginated lists give the total, array lists give every item. */
export interface ListPage<T> {
  items: T[];
  total?: number;
}

/**
 * A network resource's page: its list (paginated by the service when it paginates), and, for roles that
 * may change it, create, edit and delete with the service's validation errors shown next to the field.
 */
export function ResourcePage<T extends object>(props: {
  title: string;
  /** The resource in a sentence: "slice", "data network". */
  noun: string;
  queryKey: string;
  intro?: ReactNode;
  columns: readonly Column<T>[];
  keyOf: (item: T) => string;
  fields: readonly FieldSpec[];
  canWrite: boolean;
  list: (page: number) => Promise<ListPage<T>>;
  /** The full resource to edit, when the list's items carry fewer fields (profiles without mtu). */
  load?: (key: string) => Promise<T>;
  create: (body: Body) => Promise<unknown>;
  update?: (key: string, body: Body) => Promise<unknown>;
  remove: (key: string) => Promise<unknown>;
}) {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<{ key?: string; item?: T } | undefined>();
  const list = useQuery({
    queryKey: [props.queryKey, page],
    queryFn: () => props.list(page),
    placeholderData: keepPreviousData,
  });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: [props.queryKey] });
  const remove = useMutation({ mutationFn: props.remove, onSuccess: invalidate });
  const loaded = useQuery({
    queryKey: [props.queryKey, 'one', editing?.key],
    queryFn: () => props.load?.(editing?.key ?? ''),
    enabled: props.load !== undefined && editing?.key !== undefined,
  });
  const editItem = props.load ? loaded.data : editing?.item;
  const { update } = props;
  const done = () => {
    setEditing(undefined);
    void invalidate();
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h3">
          {props.title}
        </Title>
        {props.canWrite && <Button onClick={() => setEditing({})}>New {props.noun}</Button>}
      </Group>
      {props.intro}
      <ErrorAlert error={list.error ?? remove.error} />
      <Table.ScrollContainer minWidth={600}>
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              {props.columns.map((column) => (
                <Table.Th key={column.label}>{column.label}</Table.Th>
              ))}
              {props.canWrite && <Table.Th aria-label="Actions" />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((item) => {
              const key = props.keyOf(item);
              return (
                <Table.Tr key={key}>
                  {props.columns.map((column) => (
                    <Table.Td key={column.label}>{column.render(item)}</Table.Td>
                  ))}
                  {props.canWrite && (
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        {update && (
                          <Button
                            size="xs"
                            variant="subtle"
                            aria-label={`Edit ${props.noun} ${key}`}
                            onClick={() => setEditing({ key, item })}
                          >
                            Edit
                          </Button>
                        )}
                        <Button
                          size="xs"
                          variant="subtle"
                          color="red"
                          aria-label={`Delete ${props.noun} ${key}`}
                          onClick={() => {
                            if (window.confirm(`Delete ${props.noun} ${key}?`)) remove.mutate(key);
                          }}
                        >
                          Delete
                        </Button>
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data?.items.length === 0 && <Text c="dimmed">None yet.</Text>}
      {list.data?.total !== undefined && (
        <Pager page={page} perPage={PER_PAGE} total={list.data.total} onChange={setPage} />
      )}
      <Modal
        opened={editing !== undefined}
        onClose={() => setEditing(undefined)}
        title={editing?.key === undefined ? `New ${props.noun}` : `Edit ${props.noun} ${editing.key}`}
      >
        {editing?.key === undefined ? (
          <EntityForm
            fields={props.fields}
            submitLabel={`Create ${props.noun}`}
            onSubmit={props.create}
            onDone={done}
          />
        ) : (
          <>
            <ErrorAlert error={loaded.error} />
            {editItem && update && (
              <EntityForm
                fields={props.fields}
                item={editItem as Record<string, unknown>}
                submitLabel="Save"
                onSubmit={(body) => update(editing.key ?? '', body)}
                onDone={done}
              />
            )}
          </>
        )}
      </Modal>
    </Stack>
  );
}
