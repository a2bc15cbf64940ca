import { Button, Paper, PasswordInput, Stack, TextInput, Title, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { ErrorAlert } from '../components/error-alert.tsx';

/** The e-mail and password form of the first start and of sign-in. */
export function CredentialsForm(props: {
  title: string;
  intro: string;
  submitLabel: string;
  minPasswordLength?: number;
  notice?: string | undefined;
  onSubmit: (email: string, password: string) => Promise<void>;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await props.onSubmit(email, password);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Paper maw={420} mx="auto" mt="10vh" p="xl" withBorder component="main">
      <form onSubmit={(event) => void submit(event)}>
        <Stack>
          <Title order={1} size="h2">
            {props.title}
          </Title>
          <Text c="dimmed">{props.intro}</Text>
          {props.notice && <Text c="orange">{props.notice}</Text>}
          <TextInput
            label="E-mail"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            data-autofocus
          />
          <PasswordInput
            label="Password"
            autoComplete={props.minPasswordLength ? 'new-password' : 'current-password'}
            required
            minLength={props.minPasswordLength}
            description={
              props.minPasswordLength ? `At least ${props.minPasswordLength} characters` : undefined
            }
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
          />
          <ErrorAlert error={error} title="Could not continue" />
          <Button type="submit" loading={busy}>
            {props.submitLabel}
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}
