import { Code, SimpleGrid, Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, result } from '../../api/client.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { base64Bytes, hexDumpLines } from '../../components/hex-dump.ts';
import { JsonTree } from '../../components/json-tree-view.tsx';
import { parseDetails } from '../../components/json-tree.ts';

/** The raw message as a hex dump with offsets (base64 as given when it is not base64). */
function RawMessage({ raw }: { raw: string }) {
  if (raw === '') return null;
  const bytes = base64Bytes(raw);
  return (
    <Stack gap={4}>
      <Title order={2} size="h5">
        {bytes ? `Raw message (${bytes.length} bytes)` : 'Raw message (base64)'}
      </Title>
      <Code block aria-label="Raw message as hex" style={{ whiteSpace: 'pre', overflowX: 'auto' }}>
        {bytes ? hexDumpLines(bytes).join('\n') : raw}
      </Code>
    </Stack>
  );
}

/** A log record's details (JSON text) as a tree, beside its raw message when it has one. */
export function LogDetail({ details, raw }: { details: string; raw: string }) {
  return (
    <SimpleGrid cols={{ base: 1, md: raw === '' ? 1 : 2 }}>
      <JsonTree label="details" value={parseDetails(details)} />
      <RawMessage raw={raw} />
    </SimpleGrid>
  );
}

/** A radio event decoded by the service (GET /ran/events/{id}): the message as a collapsible tree. */
export function RadioEventDetail({ id }: { id: number }) {
  const event = useQuery({
    queryKey: ['radio-events', 'one', id],
    queryFn: () => result(api.GET('/api/v1/ran/events/{id}', { params: { path: { id } } })),
  });
  return (
    <Stack>
      <ErrorAlert error={event.error} />
      {event.data && (
        // The decoded tree beside the bytes it came from, on a wide screen.
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Stack gap={4}>
            <Title order={2} size="h5">
              Decoded message
            </Title>
            <JsonTree label="decoded" value={event.data.decoded} />
          </Stack>
          <RawMessage raw={event.data.raw} />
        </SimpleGrid>
      )}
    </Stack>
  );
}
