import { Alert, Button, Card, FileInput, Stack, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, result } from '../../api/client.ts';
import { refresh } from '../../auth/session.ts';
import { useMe } from '../../auth/use-me.ts';
import { download } from '../../components/download.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

/**
 * Admin only: a consistent copy of the database, and a restore from one. Other roles reach the page only by
 * its address; they are told so, and offered no action the service would refuse.
 */
export function BackupPage() {
  const me = useMe();
  if (!me) return null;
  if (!me.can.backup) {
    return (
      <Stack maw={800}>
        <Title order={1} size="h3">
          Backup and restore
        </Title>
        <Alert color="gray">Only administrators can back up and restore the database.</Alert>
      </Stack>
    );
  }
  return <BackupActions />;
}

function BackupActions() {
  const [file, setFile] = useState<File | null>(null);
  const backup = useMutation({
    mutationFn: async () => {
      const answer = await api.POST('/api/v1/backup', { parseAs: 'blob' });
      if (!answer.data)
        throw new Error(answer.error?.error ?? `the service answered ${answer.response.status}`);
      download(answer.data, `pmn-core-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.db`);
    },
  });
  const restore = useMutation({
    mutationFn: async (upload: File) => {
      const form = new FormData();
      form.append('file', upload);
      const answer = await result(
        api.POST('/api/v1/restore', {
          body: form as never,
          // The browser writes the multipart boundary into the content type itself.
          bodySerializer: (body: unknown) => body as FormData,
        }),
      );
      return answer;
    },
    // Users and sessions are now those of the backup: the session may have ended with the old database.
    onSuccess: () => refresh(),
  });
  return (
    <Stack maw={800}>
      <Title order={1} size="h3">
        Backup and restore
      </Title>
      <Card withBorder component="section" aria-labelledby="backup-title">
        <Stack>
          <Title order={2} size="h4" id="backup-title">
            Backup
          </Title>
          <Text size="sm">
            A consistent copy of the database, taken while the service keeps serving. It does not hold the key
            file that encrypts subscriber credentials: keep that apart.
          </Text>
          <ErrorAlert error={backup.error} title="No backup" />
          <div>
            <Button loading={backup.isPending} onClick={() => backup.mutate()}>
              Download backup
            </Button>
          </div>
        </Stack>
      </Card>
      <Card withBorder component="section" aria-labelledby="restore-title">
        <Stack>
          <Title order={2} size="h4" id="restore-title">
            Restore
          </Title>
          <Text size="sm">
            Replaces the whole database by a backup: users, sessions and API tokens become those of the
            backup. The current database is kept beside it.
          </Text>
          <FileInput
            label="Backup file"
            accept=".db,application/vnd.sqlite3"
            clearable
            value={file}
            onChange={setFile}
          />
          <ErrorAlert error={restore.error} title="Not restored" />
          {restore.data && <Alert color="green">{restore.data.message}</Alert>}
          <div>
            <Button
              color="red"
              disabled={!file}
              loading={restore.isPending}
              onClick={() => {
                if (file && window.confirm('Replace the database by this backup?')) restore.mutate(file);
              }}
            >
              Restore
            </Button>
          </div>
        </Stack>
      </Card>
    </Stack>
  );
}
