import {
  Alert,
  Button,
  Card,
  Code,
  CopyButton,
  Group,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, api, result } from '../api/client.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { fieldOfError } from '../components/field-error.ts';
import { usePreferences } from '../components/preferences.ts';
import { parseInputTime, zoneLabel } from '../components/time-format.ts';
import { Time } from '../components/time.tsx';

function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: () =>
      result(api.PUT('/api/v1/users/me/password', { body: { current_password: current, password: next } })),
    onSuccess: () => {
      setCurrent('');
      setNext('');
    },
  });
  const message = change.error instanceof ApiError ? change.error.message : undefined;
  const field = message === undefined ? undefined : fieldOfError(message, ['current_password', 'password']);
  return (
    <Card withBorder component="section" aria-labelledby="password-title">
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          change.mutate();
        }}
      >
        <Stack>
          <Title order={2} size="h4" id="password-title">
            Password
          </Title>
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            required
            value={current}
            error={field === 'current_password' ? message : undefined}
            onChange={(event) => setCurrent(event.currentTarget.value)}
          />
          <PasswordInput
            label="New password"
            description="At least 8 characters. Your other sessions end; this one stays."
            autoComplete="new-password"
            required
            minLength={8}
            value={next}
            error={field === 'password' ? message : undefined}
            onChange={(event) => setNext(event.currentTarget.value)}
          />
          {field === undefined && <ErrorAlert error={change.error} title="Password not changed" />}
          {change.isSuccess && <Alert color="green">Password changed.</Alert>}
          <Group>
            <Button type="submit" loading={change.isPending}>
              Change password
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function ApiTokens() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const { zone } = usePreferences();
  const tokens = useQuery({
    queryKey: ['api-tokens'],
    queryFn: () => result(api.GET('/api/v1/users/me/api-tokens', { params: { query: { per_page: 100 } } })),
  });
  const create = useMutation({
    mutationFn: () =>
      result(
        api.POST('/api/v1/users/me/api-tokens', {
          // Read in the zone times are shown in; text it cannot read goes as typed, for the service to name.
          body: { name, ...(expiresAt && { expires_at: parseInputTime(expiresAt, zone) ?? expiresAt }) },
        }),
      ),
    onSuccess: async () => {
      setName('');
      setExpiresAt('');
      await queryClient.invalidateQueries({ queryKey: ['api-tokens'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) =>
      result(api.DELETE('/api/v1/users/me/api-tokens/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-tokens'] }),
  });
  const message = create.error instanceof ApiError ? create.error.message : undefined;
  const field = message === undefined ? undefined : fieldOfError(message, ['name', 'expires_at']);
  return (
    <Card withBorder component="section" aria-labelledby="tokens-title">
      <Stack>
        <Title order={2} size="h4" id="tokens-title">
          API tokens
        </Title>
        <form
          onSubmit={(event: FormEvent) => {
            event.preventDefault();
            create.mutate();
          }}
        >
          <Group align="flex-end">
            <TextInput
              label="Name"
              required
              minLength={3}
              maxLength={50}
              value={name}
              error={field === 'name' ? message : undefined}
              onChange={(event) => setName(event.currentTarget.value)}
            />
            <TextInput
              label={`Expires (${zoneLabel(zone)}, optional)`}
              type="datetime-local"
              value={expiresAt}
              error={field === 'expires_at' ? message : undefined}
              onChange={(event) => setExpiresAt(event.currentTarget.value)}
            />
            <Button type="submit" loading={create.isPending}>
              Create token
            </Button>
          </Group>
        </form>
        {field === undefined && <ErrorAlert error={create.error} title="Token not created" />}
        {create.data && (
          <Alert color="yellow" title="Copy the token now: it is shown only once">
            <Group>
              <Code data-testid="new-token">{create.data.token}</Code>
              <CopyButton value={create.data.token}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="light" onClick={copy}>
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Alert>
        )}
        <ErrorAlert error={tokens.error ?? revoke.error} />
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th aria-label="Actions" />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tokens.data?.items.map((token) => (
              <Table.Tr key={token.id}>
                <Table.Td>{token.name}</Table.Td>
                <Table.Td>{token.expires_at ? <Time value={token.expires_at} /> : 'never'}</Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    variant="subtle"
                    color="red"
                    aria-label={`Revoke token ${token.name}`}
                    onClick={() => {
                      const question = `Revoke the API token "${token.name}"? Scripts using it stop working at once.`;
                      if (window.confirm(question)) revoke.mutate(String(token.id));
                    }}
                  >
                    Revoke
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {tokens.data?.items.length === 0 && <Text c="dimmed">No API tokens.</Text>}
      </Stack>
    </Card>
  );
}

export function AccountPage() {
  return (
    <Stack maw={800}>
      <Title order={1} size="h3">
        Password and API tokens
      </Title>
      <ChangePassword />
      <ApiTokens />
    </Stack>
  );
}
