import {
  ActionIcon,
  Alert,
  Button,
  Card,
  Checkbox,
  Code,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Table,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { api, result } from '../../api/client.ts';
import { useMe } from '../../auth/use-me.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { errorsOf } from '../../components/field-error.ts';
import { move, toggle } from '../../components/ordered-choice.ts';

const CIPHERING = ['NEA0', 'NEA1', 'NEA2', 'NEA3'] as const;
const INTEGRITY = ['NIA0', 'NIA1', 'NIA2', 'NIA3'] as const;

function Section(props: { title: string; children: ReactNode }) {
  const id = `section-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <Card withBorder component="section" aria-labelledby={id}>
      <Stack>
        <Title order={2} size="h4" id={id}>
          {props.title}
        </Title>
        {props.children}
      </Stack>
    </Card>
  );
}

/** A form that sends one request and says when it succeeded; its fields show the service's errors. */
function useSave<T>(send: (value: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['operator'] }),
  });
}

function Plmn({ mcc, mnc, canWrite }: { mcc: string; mnc: string; canWrite: boolean }) {
  const [values, setValues] = useState({ mcc, mnc });
  const save = useSave(() => result(api.PUT('/api/v1/operator/id', { body: values })));
  const errors = errorsOf(save.error, ['mcc', 'mnc']);
  return (
    <Section title="PLMN">
      <Text size="sm" c="dimmed">
        Radios are accepted only when they serve this PLMN. It cannot change while subscribers exist.
      </Text>
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          save.mutate(undefined);
        }}
      >
        <Group align="flex-start">
          <TextInput
            label="MCC"
            value={values.mcc}
            readOnly={!canWrite}
            error={errors.of('mcc')}
            onChange={(event) => setValues({ ...values, mcc: event.currentTarget.value })}
          />
          <TextInput
            label="MNC"
            value={values.mnc}
            readOnly={!canWrite}
            error={errors.of('mnc')}
            onChange={(event) => setValues({ ...values, mnc: event.currentTarget.value })}
          />
          {canWrite && (
            <Button type="submit" mt={25} loading={save.isPending}>
              Save PLMN
            </Button>
          )}
        </Group>
      </form>
      <ErrorAlert error={errors.form} title="PLMN not saved" />
      {save.isSuccess && <Alert color="green">PLMN saved.</Alert>}
    </Section>
  );
}

function TrackingAreas({ tacs, canWrite }: { tacs: string[]; canWrite: boolean }) {
  const [values, setValues] = useState(tacs);
  const save = useSave(() =>
    result(api.PUT('/api/v1/operator/tracking', { body: { supportedTacs: values } })),
  );
  const errors = errorsOf(save.error, ['supportedTacs']);
  return (
    <Section title="Tracking areas">
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          save.mutate(undefined);
        }}
      >
        <Stack>
          <TagsInput
            label="Supported TACs"
            description="6 hexadecimal characters each; press Enter after each"
            value={values}
            readOnly={!canWrite}
            error={errors.of('supportedTacs')}
            onChange={setValues}
          />
          {canWrite && (
            <Group>
              <Button type="submit" loading={save.isPending}>
                Save tracking areas
              </Button>
            </Group>
          )}
        </Stack>
      </form>
      <ErrorAlert error={errors.form} title="Tracking areas not saved" />
      {save.isSuccess && <Alert color="green">Tracking areas saved.</Alert>}
    </Section>
  );
}

function OperatorCode() {
  const [operatorCode, setOperatorCode] = useState('');
  const save = useSave(() => result(api.PUT('/api/v1/operator/code', { body: { operatorCode } })));
  const errors = errorsOf(save.error, ['operatorCode']);
  return (
    <Section title="Operator Code (OP)">
      <Text size="sm" c="dimmed">
        The OP is never shown. Setting a new one is refused while subscribers exist.
      </Text>
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          save.mutate(undefined);
        }}
      >
        <Group align="flex-start">
          <TextInput
            label="New OP"
            description="32 hexadecimal characters"
            autoComplete="off"
            value={operatorCode}
            error={errors.of('operatorCode')}
            onChange={(event) => setOperatorCode(event.currentTarget.value)}
          />
          <Button type="submit" mt={45} loading={save.isPending}>
            Set OP
          </Button>
        </Group>
      </form>
      <ErrorAlert error={errors.form} title="OP not set" />
      {save.isSuccess && <Alert color="green">OP set.</Alert>}
    </Section>
  );
}

function HomeNetworkKeys({ canWrite }: { canWrite: boolean }) {
  const queryClient = useQueryClient();
  const keys = useQuery({
    queryKey: ['operator', 'home-network-keys'],
    queryFn: () => result(api.GET('/api/v1/operator/home-network-keys')),
  });
  const [id, setId] = useState('');
  const [scheme, setScheme] = useState<'A' | 'B'>('A');
  const [privateKey, setPrivateKey] = useState('');
  const create = useSave(() =>
    result(
      api.POST('/api/v1/operator/home-network-keys', {
        body: { id: Number(id), scheme, ...(privateKey && { private_key: privateKey }) },
      }),
    ),
  );
  const remove = useMutation({
    mutationFn: (key: { scheme: string; id: number }) =>
      result(
        api.DELETE('/api/v1/operator/home-network-keys/{scheme}/{id}', {
          // The list answers the schemes the path takes (A or B); the service refuses any other.
          params: { path: { scheme: key.scheme as 'A' | 'B', id: key.id } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['operator'] }),
  });
  const errors = errorsOf(create.error, ['id', 'scheme', 'private_key']);
  return (
    <Section title="Home network keys">
      <Text size="sm" c="dimmed">
        The keys that conceal subscription identities (SUCI, 3GPP TS 33.501 annex C). Private keys are never
        shown.
      </Text>
      <ErrorAlert error={keys.error ?? remove.error} />
      <Table.ScrollContainer minWidth={500}>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Scheme</Table.Th>
              <Table.Th>ID</Table.Th>
              <Table.Th>Public key</Table.Th>
              {canWrite && <Table.Th aria-label="Actions" />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {keys.data?.map((key) => (
              <Table.Tr key={`${key.scheme}/${key.id}`}>
                <Table.Td>
                  {key.scheme === 'A' ? 'A (X25519)' : key.scheme === 'B' ? 'B (P-256)' : key.scheme}
                </Table.Td>
                <Table.Td>{key.id}</Table.Td>
                <Table.Td>
                  <Code style={{ wordBreak: 'break-all' }}>{key.public_key}</Code>
                </Table.Td>
                {canWrite && (
                  <Table.Td>
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      aria-label={`Delete home network key ${key.scheme} ${key.id}`}
                      onClick={() => {
                        if (window.confirm(`Delete home network key ${key.scheme} ${key.id}?`))
                          remove.mutate(key);
                      }}
                    >
                      Delete
                    </Button>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {keys.data?.length === 0 && <Text c="dimmed">No home network keys: SUCIs cannot be concealed.</Text>}
      {canWrite && (
        <form
          onSubmit={(event: FormEvent) => {
            event.preventDefault();
            create.mutate(undefined);
          }}
        >
          <Group align="flex-start">
            <TextInput
              label="Key ID"
              description="0 to 255"
              inputMode="numeric"
              value={id}
              required
              error={errors.of('id')}
              onChange={(event) => setId(event.currentTarget.value)}
            />
            <Select
              label="Scheme"
              description="Protection scheme"
              data={[
                { value: 'A', label: 'A (X25519)' },
                { value: 'B', label: 'B (P-256)' },
              ]}
              value={scheme}
              allowDeselect={false}
              error={errors.of('scheme')}
              onChange={(value) => setScheme(value === 'B' ? 'B' : 'A')}
            />
            <TextInput
              label="Private key"
              description="64 hexadecimal characters; generated when empty"
              autoComplete="off"
              value={privateKey}
              error={errors.of('private_key')}
              onChange={(event) => setPrivateKey(event.currentTarget.value)}
            />
            <Button type="submit" mt={45} loading={create.isPending}>
              Add key
            </Button>
          </Group>
        </form>
      )}
      <ErrorAlert error={errors.form} title="Key not added" />
    </Section>
  );
}

function Preference<T extends string>(props: {
  label: string;
  all: readonly T[];
  order: T[];
  canWrite: boolean;
  onChange: (order: T[]) => void;
}) {
  const left = props.all.filter((item) => !props.order.includes(item));
  return (
    <Stack gap="xs" role="group" aria-label={props.label}>
      <Text fw={500}>{props.label}</Text>
      <Text size="xs" c="dimmed">
        Most preferred first
      </Text>
      {[...props.order, ...left].map((item) => {
        const at = props.order.indexOf(item);
        return (
          <Group key={item} gap="xs">
            <Checkbox
              label={at >= 0 ? `${at + 1}. ${item}` : item}
              checked={at >= 0}
              disabled={!props.canWrite}
              onChange={(event) => props.onChange(toggle(props.order, item, event.currentTarget.checked))}
            />
            {props.canWrite && at >= 0 && (
              <>
                <ActionIcon
                  variant="subtle"
                  aria-label={`Prefer ${item}`}
                  disabled={at === 0}
                  onClick={() => props.onChange(move(props.order, item, -1))}
                >
                  ↑
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  aria-label={`Prefer ${item} less`}
                  disabled={at === props.order.length - 1}
                  onClick={() => props.onChange(move(props.order, item, 1))}
                >
                  ↓
                </ActionIcon>
              </>
            )}
          </Group>
        );
      })}
    </Stack>
  );
}

type Ciphering = (typeof CIPHERING)[number];
type Integrity = (typeof INTEGRITY)[number];

function NasSecurity(props: { ciphering: Ciphering[]; integrity: Integrity[]; canWrite: boolean }) {
  const [ciphering, setCiphering] = useState(props.ciphering);
  const [integrity, setIntegrity] = useState(props.integrity);
  const save = useSave(() =>
    result(api.PUT('/api/v1/operator/nas-security', { body: { ciphering, integrity } })),
  );
  return (
    <Section title="NAS security">
      <Text size="sm" c="dimmed">
        The algorithms offered to devices in the NAS Security Mode Command, 1 to 4 of each (3GPP TS 33.501
        clause 5.11.1.1).
      </Text>
      <SimpleGrid cols={{ base: 1, xs: 2 }}>
        <Preference
          label="Ciphering"
          all={CIPHERING}
          order={ciphering}
          canWrite={props.canWrite}
          onChange={setCiphering}
        />
        <Preference
          label="Integrity"
          all={INTEGRITY}
          order={integrity}
          canWrite={props.canWrite}
          onChange={setIntegrity}
        />
      </SimpleGrid>
      {props.canWrite && (
        <Group>
          <Button loading={save.isPending} onClick={() => save.mutate(undefined)}>
            Save NAS security
          </Button>
        </Group>
      )}
      <ErrorAlert error={save.error} title="NAS security not saved" />
      {save.isSuccess && <Alert color="green">NAS security saved.</Alert>}
    </Section>
  );
}

export function OperatorPage() {
  const me = useMe();
  const canWrite = me?.can.writeNetwork ?? false;
  const operator = useQuery({ queryKey: ['operator'], queryFn: () => result(api.GET('/api/v1/operator')) });
  const nas = useQuery({
    queryKey: ['operator', 'nas-security'],
    queryFn: () => result(api.GET('/api/v1/operator/nas-security')),
  });
  return (
    <Stack maw={900}>
      <Title order={1} size="h3">
        Operator
      </Title>
      <ErrorAlert error={operator.error ?? nas.error} />
      {/* The forms start from the service's values once they are known, then keep what is typed. */}
      {operator.data && me && (
        <>
          <Plmn mcc={operator.data.id.mcc} mnc={operator.data.id.mnc} canWrite={canWrite} />
          <TrackingAreas tacs={operator.data.tracking.supportedTacs} canWrite={canWrite} />
        </>
      )}
      {canWrite && <OperatorCode />}
      {me && <HomeNetworkKeys canWrite={canWrite} />}
      {nas.data && me && (
        <NasSecurity ciphering={nas.data.ciphering} integrity={nas.data.integrity} canWrite={canWrite} />
      )}
    </Stack>
  );
}
