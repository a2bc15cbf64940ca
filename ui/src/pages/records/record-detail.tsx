import { Code, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, result } from '../../api/client.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { JsonTree } from '../../components/json-tree-view.tsx';
import { parseDetails } from '../../components/json-tree.ts';

function RawMessage({ raw }: { raw: string }) {
  if (raw === '') return null;
  return (
    <>
      <Text size="sm" fw={500}>
        Raw message (base64)
      </Text>
      <Code block style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
        {raw}
      </Code>
    </>
  );
}

/** A log record's details (JSON text) as a tree, and its raw message (base64) when it has one. */
export function LogDetail({ details, raw }: { details: string; raw: string }) {
  return (
    <Stack>
      <JsonTree label="details" value={parseDetails(details)} />
      <RawMessage raw={raw} />
    </Stack>
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
        <>
          <Title order={2} size="h5">
            Decoded message
          </Title>
          <JsonTree label="decoded" value={event.data.decoded} />
          <RawMessage raw={event.data.raw} />
        </>
      )}
    </Stack>
  );
}
