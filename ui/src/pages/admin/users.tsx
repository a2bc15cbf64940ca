import {
  Button,
  Group,
  Modal,
  PasswordInput,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, result } from '../../api/client.ts';
import { ROLE_NAMES } from '../../auth/roles.ts';
import { useMe } from '../../auth/use-me.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { errorsOf } from '../../components/field-error.ts';
import { Pager } from '../../components/pager.tsx';
import { PER_PAGE } from '../../components/resource-page.tsx';

const ROLES = Object.entries(ROLE_NAMES).map(([value, label]) => ({ value, label }));
type RoleId = 1 | 2 | 3;
const roleId = (value: string | null): RoleId => (value === '1' ? 1 : value === '3' ? 3 : 2);

function CreateUser({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState({ email: '', password: '', role: '2' });
  const create = useMutation({
    mutationFn: () =>
      result(
        api.POST('/api/v1/users', {
          body: { email: values.email, password: values.password, role_id: roleId(values.role) },
        }),
      ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      onDone();
    },
  });
  const errors = errorsOf(create.error, ['email', 'password', 'role_id']);
  return (
    <form
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        create.mutate();
      }}
    >
      <Stack>
        <TextInput
          label="E-mail"
          type="email"
          required
          value={values.email}
          error={errors.of('email')}
          onChange={(event) => setValues({ ...values, email: event.currentTarget.value })}
        />
        <PasswordInput
          label="Password"
          description="At least 8 characters"
          autoComplete="new-password"
          required
          value={values.password}
          error={errors.of('password')}
          onChange={(event) => setValues({ ...values, password: event.currentTarget.value })}
        />
        <Select
          label="Role"
          data={ROLES}
          value={values.role}
          allowDeselect={false}
          error={errors.of('role_id')}
          onChange={(role) => setValues({ ...values, role: role ?? '2' })}
        />
        <ErrorAlert error={errors.form} title="User not created" />
        <Button type="submit" loading={create.isPending}>
          Create user
        </Button>
      </Stack>
    </form>
  );
}

function SetPassword({ email, onDone }: { email: string; onDone: () => void }) {
  const [password, setPassword] = useState('');
  const set = useMutation({
    mutationFn: () =>
      result(api.PUT('/api/v1/users/{email}/password', { params: { path: { email } }, body: { password } })),
    onSuccess: onDone,
  });
  const errors = errorsOf(set.error, ['password']);
  return (
    <form
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        set.mutate();
      }}
    >
      <Stack>
        <Text size="sm">The user's sessions end; its API tokens keep working.</Text>
        <PasswordInput
          label="New password"
          autoComplete="new-password"
          required
          value={password}
          error={errors.of('password')}
          onChange={(event) => setPassword(event.currentTarget.value)}
        />
        <ErrorAlert error={errors.form} title="Password not set" />
        <Button type="submit" loading={set.isPending}>
          Set password
        </Button>
      </Stack>
    </form>
  );
}

/** Users: network managers read the list; only admins create, change roles, set passwords, delete. */
export function UsersPage() {
  const me = useMe();
  const canManage = me?.can.manageUsers ?? false;
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [passwordOf, setPasswordOf] = useState<string | undefined>();
  const users = useQuery({
    queryKey: ['users', page],
    queryFn: () => result(api.GET('/api/v1/users', { params: { query: { page, per_page: PER_PAGE } } })),
    placeholderData: keepPreviousData,
  });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: ['users'] });
  const changeRole = useMutation({
    mutationFn: (change: { email: string; role: RoleId }) =>
      result(
        api.PUT('/api/v1/users/{email}', {
          params: { path: { email: change.email } },
          body: { role_id: change.role },
        }),
      ),
    onSettled: invalidate,
  });
  const remove = useMutation({
    mutationFn: (email: string) =>
      result(api.DELETE('/api/v1/users/{email}', { params: { path: { email } } })),
    onSuccess: invalidate,
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h3">
          Users
        </Title>
        {canManage && <Button onClick={() => setCreating(true)}>New user</Button>}
      </Group>
      <ErrorAlert error={users.error ?? changeRole.error ?? remove.error} />
      <Table.ScrollContainer minWidth={600}>
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>E-mail</Table.Th>
              <Table.Th>Role</Table.Th>
              {canManage && <Table.Th aria-label="Actions" />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {users.data?.items.map((user) => (
              <Table.Tr key={user.email}>
                <Table.Td>{user.email}</Table.Td>
                <Table.Td>
                  {canManage ? (
                    <Select
                      aria-label={`Role of ${user.email}`}
                      data={ROLES}
                      value={String(user.role_id)}
                      allowDeselect={false}
                      w={180}
                      onChange={(role) => changeRole.mutate({ email: user.email, role: roleId(role) })}
                    />
                  ) : (
                    (ROLE_NAMES[user.role_id] ?? user.role_id)
                  )}
                </Table.Td>
                {canManage && (
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <Button
                        size="xs"
                        variant="subtle"
                        aria-label={`Set password of ${user.email}`}
                        onClick={() => setPasswordOf(user.email)}
                      >
                        Set password
                      </Button>
                      <Button
                        size="xs"
                        variant="subtle"
                        color="red"
                        aria-label={`Delete user ${user.email}`}
                        onClick={() => {
                          if (window.confirm(`Delete user ${user.email}? Its sessions and API tokens end.`))
                            remove.mutate(user.email);
                        }}
                      >
                        Delete
                      </Button>
                    </Group>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {users.data && (
        <Pager page={page} perPage={PER_PAGE} total={users.data.total_count} onChange={setPage} />
      )}
      <Modal opened={creating} onClose={() => setCreating(false)} title="New user">
        <CreateUser onDone={() => setCreating(false)} />
      </Modal>
      <Modal
        opened={passwordOf !== undefined}
        onClose={() => setPasswordOf(undefined)}
        title={`Password of ${passwordOf ?? ''}`}
      >
        {passwordOf && <SetPassword email={passwordOf} onDone={() => setPasswordOf(undefined)} />}
      </Modal>
    </Stack>
  );
}
