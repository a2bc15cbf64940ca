import { Anchor, Badge, Button, Modal, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, result } from '../api/client.ts';
import type { ListItem } from '../api/bodies.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { Pager } from '../components/pager.tsx';
import { useRefreshInterval } from '../components/preferences.ts';
import { Time, useFormatTime } from '../components/time.tsx';
import { RadioEventDetail } from './records/record-detail.tsx';
import { recordTitle } from './records/record-title.ts';

type Step = ListItem<'/api/v1/subscribers/{imsi}/timeline'>;

const PER_PAGE = 50;

/**
 * Where a step sits among the lanes UE, gNB, AMF/SMF: a NAS message runs between the UE and the AMF/SMF
 * (through the gNB), the NGAP message that carried it between the gNB and the AMF. The arrow points the
 * way it went: inbound towards the core, outbound towards the device.
 */
function Lanes({ step }: { step: Step }) {
  const arrow = step.direction === 'inbound' ? '→' : '←';
  const path =
    step.kind === 'nas'
      ? step.direction === 'inbound'
        ? 'UE to AMF/SMF'
        : 'AMF/SMF to UE'
      : step.direction === 'inbound'
        ? 'gNB to AMF'
        : 'AMF to gNB';
  const message = (
    <Stack gap={2}>
      <Text size="sm" fw={600}>
        {step.direction === 'inbound' ? `${step.message} ${arrow}` : `${arrow} ${step.message}`}
        <Text span size="xs" c="dimmed">
          {' '}
          ({step.kind.toUpperCase()}, {path})
        </Text>
      </Text>
      <Text size="xs">{step.summary}</Text>
      {step.explanation && (
        <Text size="sm" fw={500}>
          {step.explanation}
        </Text>
      )}
    </Stack>
  );
  return step.kind === 'nas' ? (
    <Table.Td colSpan={3}>{message}</Table.Td>
  ) : (
    <>
      <Table.Td />
      <Table.Td colSpan={2}>{message}</Table.Td>
    </>
  );
}

/** A subscriber's signalling story (GET /subscribers/{imsi}/timeline) as a sequence, newest first. */
export function SubscriberTimeline({ imsi }: { imsi: string }) {
  const [page, setPage] = useState(1);
  const [shown, setShown] = useState<Step | undefined>();
  const format = useFormatTime();
  const timeline = useQuery({
    queryKey: ['subscribers', imsi, 'timeline', page],
    queryFn: () =>
      result(
        api.GET('/api/v1/subscribers/{imsi}/timeline', {
          params: { path: { imsi }, query: { page, per_page: PER_PAGE } },
        }),
      ),
    placeholderData: keepPreviousData,
    refetchInterval: useRefreshInterval(10_000),
  });
  const steps = timeline.data?.items ?? [];
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Timeline
      </Title>
      <ErrorAlert error={timeline.error} />
      {timeline.data && steps.length === 0 && <Text c="dimmed">No signalling recorded.</Text>}
      {steps.length > 0 && (
        <Table.ScrollContainer minWidth={800}>
          <Table aria-label={`Timeline of ${imsi}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>UE</Table.Th>
                <Table.Th>gNB</Table.Th>
                <Table.Th>AMF/SMF</Table.Th>
                <Table.Th>Level</Table.Th>
                <Table.Th>Record</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {steps.map((step) => (
                <Table.Tr key={`${step.kind}-${step.record_id}`}>
                  <Table.Td>
                    <Time value={step.timestamp} />
                  </Table.Td>
                  <Lanes step={step} />
                  {/* As wide as its badge: a narrower cell would cut the level's word. */}
                  <Table.Td style={{ width: '1%', whiteSpace: 'nowrap' }}>
                    {step.level === 'info' ? (
                      step.level
                    ) : (
                      <Badge color="red" variant="filled" miw="max-content">
                        {step.level}
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>
                    {step.kind === 'ngap' ? (
                      <Button
                        size="xs"
                        variant="subtle"
                        aria-label={`Open radio event ${step.record_id}`}
                        onClick={() => setShown(step)}
                      >
                        Open
                      </Button>
                    ) : (
                      // No endpoint reads one subscriber log: its list, filtered to this subscriber.
                      <Anchor
                        component={Link}
                        size="sm"
                        to={`/logs/subscribers?imsi=${imsi}`}
                        aria-label={`Subscriber log ${step.record_id}`}
                      >
                        Log
                      </Anchor>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {timeline.data && timeline.data.total_count > PER_PAGE && (
        <Pager page={page} perPage={PER_PAGE} total={timeline.data.total_count} onChange={setPage} />
      )}
      <Modal
        opened={shown !== undefined}
        onClose={() => setShown(undefined)}
        title={
          shown === undefined
            ? ''
            : recordTitle({
                what: shown.message,
                direction: shown.direction,
                peer: shown.radio ?? undefined,
                time: format(shown.timestamp),
              })
        }
        size={1200}
      >
        {shown && <RadioEventDetail id={shown.record_id} />}
      </Modal>
    </Stack>
  );
}
