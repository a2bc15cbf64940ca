import {
  Button,
  Group,
  Modal,
  NativeSelect,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { memo, useCallback, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ApiError, api, result } from '../api/client.ts';
import { useMe } from '../auth/use-me.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { fieldOfError } from '../components/field-error.ts';
import { Pager } from '../components/pager.tsx';
import { useNames } from './network/use-names.ts';
import { SubscriberImport } from './subscriber-import.tsx';
import classes from './subscribers.module.css';
import { useRefreshInterval } from '../components/preferences.ts';

const PAGE_SIZES = ['25', '50', '100'];
const FIELDS = ['imsi', 'key', 'sequenceNumber', 'profile_name', 'opc', 'msisdn'] as const;

function CreateSubscriber({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const profiles = useNames('profiles');
  const [values, setValues] = useState({
    imsi: '',
    key: '',
    sequenceNumber: '000000000001',
    profile_name: '',
    opc: '',
    msisdn: '',
  });
  // Until one is picked, the profile is `default` when it exists, else the first: the service requires one.
  const profile = values.profile_name || (profiles.includes('default') ? 'default' : (profiles[0] ?? ''));
  const create = useMutation({
    mutationFn: () => {
      // Sent empty, the service would answer about the name's characters, which is not the mistake.
      if (profile === '')
        throw new ApiError(400, 'profile_name must name a profile: create one under Profiles first');
      return result(
        api.POST('/api/v1/subscribers', {
          body: {
            ...values,
            profile_name: profile,
            opc: values.opc === '' ? undefined : values.opc,
            msisdn: values.msisdn === '' ? undefined : values.msisdn,
          },
        }),
      );
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['subscribers'] });
      onDone();
    },
  });
  const message = create.error instanceof ApiError ? create.error.message : undefined;
  const errorField = message === undefined ? undefined : fieldOfError(message, FIELDS);
  const errorOf = (field: string) => (errorField === field ? message : undefined);
  const input = (field: (typeof FIELDS)[number]) => ({
    value: values[field],
    error: errorOf(field),
    onChange: (event: { currentTarget: { value: string } }) =>
      setValues({ ...values, [field]: event.currentTarget.value }),
  });
  return (
    <form
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        create.mutate();
      }}
    >
      <Stack>
        <TextInput
          label="IMSI"
          description="15 digits, starting with the operator's MCC and MNC"
          required
          {...input('imsi')}
        />
        <TextInput label="Key (K)" description="32 hexadecimal characters" required {...input('key')} />
        <TextInput
          label="Sequence number"
          description="12 hexadecimal characters"
          required
          {...input('sequenceNumber')}
        />
        <Select
          label="Profile"
          required
          data={profiles}
          value={profile || null}
          error={errorOf('profile_name')}
          onChange={(name) => setValues({ ...values, profile_name: name ?? '' })}
        />
        <TextInput
          label="OPc"
          description="Optional: derived from the operator's OP and the key when empty"
          {...input('opc')}
        />
        <TextInput
          label="MSISDN"
          description="Optional: E.164, up to 15 digits, country code first (a leading + is dropped)"
          {...input('msisdn')}
        />
        {errorField === undefined && <ErrorAlert error={create.error} title="Not created" />}
        <Button type="submit" loading={create.isPending}>
          Create subscriber
        </Button>
      </Stack>
    </form>
  );
}

type Subscriber = {
  imsi: string;
  msisdn: string | null;
  profile_name: string;
  status: { registered: boolean; radio_access_types: string[]; num_sessions: number };
};

/**
 * One row of the list. Memoised: the query cache keeps unchanged items identical across refetches, so a
 * refresh every 10 s or a page-size change renders only the rows that are new or changed. Its status and
 * delete action are plain elements (subscribers.module.css): fewer components per cell.
 */
const SubscriberRow = memo(function SubscriberRow(props: {
  subscriber: Subscriber;
  canWrite: boolean;
  onDelete: (imsi: string) => void;
}) {
  const { subscriber } = props;
  return (
    <Table.Tr>
      <Table.Td>
        <Link to={`/subscribers/${subscriber.imsi}`}>{subscriber.imsi}</Link>
      </Table.Td>
      <Table.Td>{subscriber.msisdn ?? ''}</Table.Td>
      <Table.Td>{subscriber.profile_name}</Table.Td>
      <Table.Td>
        <span className={classes.status} data-registered={subscriber.status.registered || undefined}>
          {subscriber.status.registered
            ? `registered ${subscriber.status.radio_access_types.join(', ')}`
            : 'not registered'}
        </span>
      </Table.Td>
      <Table.Td>{subscriber.status.num_sessions}</Table.Td>
      {props.canWrite && (
        <Table.Td>
          <button
            type="button"
            className={classes.delete}
            aria-label={`Delete subscriber ${subscriber.imsi}`}
            onClick={() => props.onDelete(subscriber.imsi)}
          >
            Delete
          </button>
        </Table.Td>
      )}
    </Table.Tr>
  );
});

export function SubscribersPage() {
  const me = useMe();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(25);
  // A radio's page links here with ?radio=<name>.
  const [search] = useSearchParams();
  const [radio, setRadio] = useState(search.get('radio') ?? '');
  const [dataNetwork, setDataNetwork] = useState('');
  const [msisdn, setMsisdn] = useState('');
  const [creating, creatingModal] = useDisclosure();
  const [importing, importingModal] = useDisclosure();
  const query = {
    page,
    per_page: perPage,
    ...(radio && { radio }),
    ...(dataNetwork && { data_network: dataNetwork }),
    ...(msisdn && { msisdn }),
  };
  const list = useQuery({
    queryKey: ['subscribers', query],
    queryFn: () => result(api.GET('/api/v1/subscribers', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: useRefreshInterval(10_000),
  });
  const remove = useMutation({
    mutationFn: (imsi: string) =>
      result(api.DELETE('/api/v1/subscribers/{imsi}', { params: { path: { imsi } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['subscribers'] }),
  });
  const { mutate: removeSubscriber } = remove;
  const onDelete = useCallback(
    (imsi: string) => {
      if (window.confirm(`Delete subscriber ${imsi}?`)) removeSubscriber(imsi);
    },
    [removeSubscriber],
  );
  const filter = (set: (value: string) => void) => (event: { currentTarget: { value: string } }) => {
    set(event.currentTarget.value.trim());
    setPage(1);
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h3">
          Subscribers
        </Title>
        {me?.can.writeNetwork && (
          <Group>
            <Button variant="default" onClick={importingModal.open}>
              Import
            </Button>
            <Button onClick={creatingModal.open}>New subscriber</Button>
          </Group>
        )}
      </Group>
      <Group>
        <TextInput
          label="Radio"
          placeholder="served by radio (name)"
          value={radio}
          onChange={filter(setRadio)}
        />
        <TextInput
          label="Data network"
          placeholder="with a session on"
          value={dataNetwork}
          onChange={filter(setDataNetwork)}
        />
        <TextInput label="MSISDN" placeholder="number" value={msisdn} onChange={filter(setMsisdn)} />
      </Group>
      <ErrorAlert error={list.error ?? remove.error} />
      <Table.ScrollContainer minWidth={600}>
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>IMSI</Table.Th>
              <Table.Th>MSISDN</Table.Th>
              <Table.Th>Profile</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Sessions</Table.Th>
              {me?.can.writeNetwork && <Table.Th aria-label="Actions" />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data?.items.map((subscriber) => (
              <SubscriberRow
                key={subscriber.imsi}
                subscriber={subscriber}
                canWrite={me?.can.writeNetwork ?? false}
                onDelete={onDelete}
              />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {list.data?.items.length === 0 && <Text c="dimmed">No subscribers match.</Text>}
      {list.data && (
        <Group justify="space-between" align="flex-end">
          {/* A native select: the keyboard and phones handle it, and no popover is positioned while
              the rows it asks for render (docs/performance.md, Web UI budget). */}
          <NativeSelect
            label="Rows per page"
            data={PAGE_SIZES}
            value={String(perPage)}
            w={120}
            onChange={(event) => {
              setPerPage(Number(event.currentTarget.value));
              setPage(1);
            }}
          />
          <Pager page={page} perPage={perPage} total={list.data.total_count} onChange={setPage} />
        </Group>
      )}
      <Modal opened={creating} onClose={creatingModal.close} title="New subscriber">
        <CreateSubscriber onDone={creatingModal.close} />
      </Modal>
      <Modal opened={importing} onClose={importingModal.close} title="Import subscribers" size="lg">
        <SubscriberImport onDone={importingModal.close} />
      </Modal>
    </Stack>
  );
}
