import { Button, Group, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, result } from '../api/client.ts';
import type { ListItem } from '../api/bodies.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { Pager } from '../components/pager.tsx';
import { useRefreshInterval } from '../components/preferences.ts';
import { partCount } from '../components/sms-parts.ts';
import { SmsContent, SmsStatus } from '../components/sms-status.tsx';
import { Time } from '../components/time.tsx';

type Message = ListItem<'/api/v1/sms'>;

const PER_PAGE = 25;

/** The send box: text with the part count the service will store, and its refusal in words. */
function SendBox({ imsi }: { imsi: string }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [from, setFrom] = useState('');
  const count = partCount(text);
  const send = useMutation({
    mutationFn: (body: { text: string; from?: string }) =>
      result(api.POST('/api/v1/sms', { body: { imsi, ...body } })),
    onSuccess: async () => {
      setText('');
      await queryClient.invalidateQueries({ queryKey: ['sms'] });
    },
  });
  const description = count.ok
    ? `${[...text].length} characters, ${count.parts} ${count.parts === 1 ? 'part' : 'parts'} (${count.alphabet})`
    : count.error;
  return (
    <Stack gap="xs">
      <Textarea
        label="Message"
        description={description}
        autosize
        minRows={2}
        value={text}
        onChange={(event) => setText(event.currentTarget.value)}
      />
      <Group align="flex-end">
        <TextInput
          label="From"
          description="E.164 number or sender id of up to 11 characters; PMN Core if empty"
          value={from}
          onChange={(event) => setFrom(event.currentTarget.value.trim())}
        />
        <Button
          disabled={text === '' || !count.ok}
          loading={send.isPending}
          onClick={() => send.mutate({ text, ...(from === '' ? {} : { from }) })}
        >
          Send message
        </Button>
      </Group>
      <ErrorAlert error={send.error} title="Not sent" />
      {send.isSuccess && (
        <Text size="sm" role="status">
          Queued in {send.data.ids.length} {send.data.ids.length === 1 ? 'part' : 'parts'}.
        </Text>
      )}
    </Stack>
  );
}

/** A message as seen from the subscriber: received from its sender, or sent by it to a number. */
function MessageRow({ imsi, message }: { imsi: string; message: Message }) {
  const received = message.to_imsi === imsi;
  return (
    <Table.Tr>
      <Table.Td>
        <Time value={message.created_at} />
      </Table.Td>
      <Table.Td>{received ? 'received' : 'sent'}</Table.Td>
      <Table.Td>{received ? message.from : (message.to_msisdn ?? message.to_imsi)}</Table.Td>
      <Table.Td style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        <SmsContent message={message} />
      </Table.Td>
      <Table.Td>
        <SmsStatus message={message} />
      </Table.Td>
    </Table.Tr>
  );
}

/** The subscriber's short messages (GET /sms?imsi=, either side), newest first, and the send box. */
export function SubscriberMessages({ imsi, canSend }: { imsi: string; canSend: boolean }) {
  const [page, setPage] = useState(1);
  const messages = useQuery({
    queryKey: ['sms', { imsi, page }],
    queryFn: () => result(api.GET('/api/v1/sms', { params: { query: { imsi, page, per_page: PER_PAGE } } })),
    placeholderData: keepPreviousData,
    refetchInterval: useRefreshInterval(10_000),
  });
  const items = messages.data?.items ?? [];
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Short messages
      </Title>
      {canSend && <SendBox imsi={imsi} />}
      <ErrorAlert error={messages.error} />
      {messages.data && items.length === 0 && <Text c="dimmed">No short messages.</Text>}
      {items.length > 0 && (
        <Table.ScrollContainer minWidth={700}>
          <Table aria-label={`Short messages of ${imsi}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Direction</Table.Th>
                <Table.Th>Peer</Table.Th>
                <Table.Th>Text</Table.Th>
                <Table.Th>Status</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((message) => (
                <MessageRow key={message.id} imsi={imsi} message={message} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {messages.data && messages.data.total_count > PER_PAGE && (
        <Pager page={page} perPage={PER_PAGE} total={messages.data.total_count} onChange={setPage} />
      )}
    </Stack>
  );
}
