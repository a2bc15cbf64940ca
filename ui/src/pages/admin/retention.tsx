import { Alert, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, result } from '../../api/client.ts';
import { useMe } from '../../auth/use-me.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { errorsOf } from '../../components/field-error.ts';

/** The record kinds with a retention policy, and their paths (management API: Limits, decisions section 11). */
const KINDS = [
  { path: '/api/v1/ran/events/retention', label: 'Radio events' },
  { path: '/api/v1/logs/radio/retention', label: 'Radio logs' },
  { path: '/api/v1/logs/subscribers/retention', label: 'Subscriber logs' },
  { path: '/api/v1/flow-reports/retention', label: 'Flow reports' },
  { path: '/api/v1/subscriber-usage/retention', label: 'Subscriber usage' },
  { path: '/api/v1/logs/audit/retention', label: 'Audit logs' },
] as const;
type RetentionPath = (typeof KINDS)[number]['path'];

function Retention({ path, label, canWrite }: { path: RetentionPath; label: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const current = useQuery({ queryKey: ['retention', path], queryFn: () => result(api.GET(path)) });
  const [days, setDays] = useState('');
  const save = useMutation({
    // Sent as typed when it is not a number, so the service's message names the field.
    mutationFn: () =>
      result(
        api.PUT(path, { body: { days: (Number.isInteger(Number(days)) ? Number(days) : days) as number } }),
      ),
    onSuccess: async () => {
      setDays('');
      await queryClient.invalidateQueries({ queryKey: ['retention', path] });
    },
  });
  const errors = errorsOf(save.error, ['days']);
  return (
    <Card withBorder component="section" aria-label={`${label} retention`}>
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Group justify="space-between" align="flex-end">
          <div>
            <Title order={2} size="h5">
              {label}
            </Title>
            <Text size="sm" c="dimmed">
              Kept {current.data ? `${current.data.days} days` : '…'}
            </Text>
          </div>
          {canWrite && (
            <Group align="flex-start">
              <TextInput
                label={`${label}: days`}
                inputMode="numeric"
                required
                w={160}
                value={days}
                error={errors.of('days')}
                onChange={(event) => setDays(event.currentTarget.value)}
              />
              <Button type="submit" mt={25} loading={save.isPending}>
                Save
              </Button>
            </Group>
          )}
        </Group>
      </form>
      <ErrorAlert error={current.error ?? errors.form} />
      {save.isSuccess && (
        <Alert color="green" mt="xs">
          {label} retention saved.
        </Alert>
      )}
    </Card>
  );
}

/** How long each kind of record is kept; enforced at start and at least hourly. */
export function RetentionPage() {
  const me = useMe();
  return (
    <Stack maw={900}>
      <Title order={1} size="h3">
        Retention
      </Title>
      <Text size="sm" c="dimmed">
        Records older than their retention are deleted at start and at least every hour.
      </Text>
      {me &&
        KINDS.filter((kind) => kind.label !== 'Audit logs' || me.can.readAudit).map((kind) => (
          <Retention
            key={kind.path}
            path={kind.path}
            label={kind.label}
            canWrite={kind.label === 'Audit logs' ? me.can.readAudit : me.can.writeRecords}
          />
        ))}
    </Stack>
  );
}
