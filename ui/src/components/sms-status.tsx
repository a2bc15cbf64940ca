import { Badge, Text } from '@mantine/core';
import type { ListItem } from '../api/bodies.ts';

type Sms = ListItem<'/api/v1/sms'>;

const COLOR: Record<Sms['status'], string> = {
  queued: 'blue',
  delivered: 'green',
  failed: 'red',
  expired: 'gray',
};

/** A short message's status, and under a failed one the RP-cause the device answered, in words. */
export function SmsStatus({ message }: { message: Pick<Sms, 'status' | 'cause'> }) {
  return (
    <>
      <Badge color={COLOR[message.status]} variant="light" miw="max-content">
        {message.status}
      </Badge>
      {message.cause && <Text size="xs">{message.cause}</Text>}
    </>
  );
}

/** A part's text, or that it holds octets (8-bit data) and how many. */
export function SmsContent({ message }: { message: Pick<Sms, 'text' | 'data'> }) {
  return (
    message.text ?? (
      <Text span size="sm" c="dimmed">
        binary ({(message.data ?? '').length / 2} octets)
      </Text>
    )
  );
}
