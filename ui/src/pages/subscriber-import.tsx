import { Alert, Button, FileInput, List, Stack, Text, Textarea } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, result } from '../api/client.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { importContentType, rowErrorsOf } from '../components/import-errors.ts';

/**
 * Bulk import: a CSV or JSON file, or pasted text, sent as it is; the service creates every subscriber or
 * none, and its reasons are listed row by row.
 */
export function SubscriberImport({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [pasted, setPasted] = useState('');
  const send = useMutation({
    mutationFn: async () => {
      const text = file ? await file.text() : pasted;
      const contentType = importContentType(file?.name ?? '', text);
      return result(
        api.POST('/api/v1/subscribers/import', {
          // Sent as written: the service parses and checks it, and names the rows at fault.
          body: text as never,
          bodySerializer: (body: unknown) => body as string,
          headers: { 'content-type': contentType },
        }),
      );
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['subscribers'] });
    },
  });
  const rows = send.error instanceof Error ? rowErrorsOf(send.error.message) : [];
  return (
    <form
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        send.mutate();
      }}
    >
      <Stack>
        <Text size="sm">
          CSV with the header <code>imsi,key,sequenceNumber,profile_name,opc,msisdn</code> (opc and msisdn
          optional), or a JSON array of subscribers. Up to 10,000; all are created or none.
        </Text>
        <FileInput
          label="File"
          accept=".csv,.json,text/csv,application/json"
          clearable
          value={file}
          onChange={setFile}
        />
        <Textarea
          label="Or paste"
          autosize
          minRows={3}
          maxRows={10}
          disabled={file !== null}
          value={pasted}
          onChange={(event) => setPasted(event.currentTarget.value)}
        />
        {rows.length > 0 ? (
          <Alert color="red" title="Nothing imported" role="alert">
            <List size="sm" aria-label="Rows refused">
              {rows.map((row) => (
                <List.Item key={row.row}>
                  Row {row.row}: {row.reason}
                </List.Item>
              ))}
            </List>
          </Alert>
        ) : (
          <ErrorAlert error={send.error} title="Nothing imported" />
        )}
        {send.data && (
          <Alert color="green" title="Imported">
            {send.data.message}
          </Alert>
        )}
        <Button type="submit" loading={send.isPending} disabled={!file && pasted.trim() === ''}>
          Import
        </Button>
        {send.data && (
          <Button variant="default" onClick={onDone}>
            Close
          </Button>
        )}
      </Stack>
    </form>
  );
}
