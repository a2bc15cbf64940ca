import { Anchor, Badge, Button, Modal, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, result } from '../api/client.ts';
import type { ListItem } from '../api/bodies.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { JsonTree } from '../components/json-tree-view.tsx';
import { Pager } from '../components/pager.tsx';
import { SUBSCRIBER_KINDS, useLiveReload } from '../components/live-events.ts';
import { useRefreshInterval } from '../components/preferences.ts';
import { Time, useFormatTime } from '../components/time.tsx';
import { RadioEventDetail } from './records/record-detail.tsx';
import { recordTitle } from './records/record-title.ts';
import { LANES, placeOf } from './timeline-lanes.ts';

type Step = ListItem<'/api/v1/subscribers/{imsi}/timeline'>;

const PER_PAGE = 50;

/**
 * One step on its lanes (timeline-lanes.ts). A message's arrow points the way it went: inbound towards
 * the core, outbound towards the device.
 */
function Lanes({ step }: { step: Step }) {
  const { from, span, path } = placeOf(step);
  const arrow = step.direction === 'inbound' ? '→' : '←';
  const title =
    step.direction === null
      ? step.message
      : step.direction === 'inbound'
        ? `${step.message} ${arrow}`
        : `${arrow} ${step.message}`;
  const empty = (count: number, side: string) =>
    Array.from({ length: count }, (_, lane) => <Table.Td key={`${side}-${lane}`} />);
  return (
    <>
      {empty(from, 'before')}
      <Table.Td colSpan={span}>
        <Stack gap={2}>
          <Text size="sm" fw={600}>
            {title}
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
      </Table.Td>
      {empty(LANES.length - from - span, 'after')}
    </>
  );
}

/** What opens a step's record: the decoded radio event, the subscriber logs, or the step's own details. */
function RecordCell({ step, imsi, open }: { step: Step; imsi: string; open: (step: Step) => void }) {
  if (step.source === 'radio_event')
    return (
      <Button
        size="xs"
        variant="subtle"
        aria-label={`Open radio event ${step.record_id}`}
        onClick={() => open(step)}
      >
        Open
      </Button>
    );
  if (step.source === 'subscriber_log')
    // No endpoint reads one subscriber log: its list, filtered to this subscriber.
    return (
      <Anchor
        component={Link}
        size="sm"
        to={`/logs/subscribers?imsi=${imsi}`}
        aria-label={`Subscriber log ${step.record_id} of ${step.message}`}
      >
        Log
      </Anchor>
    );
  return (
    <Button
      size="xs"
      variant="subtle"
      aria-label={`Details of ${step.message} ${step.record_id}`}
      onClick={() => open(step)}
    >
      Details
    </Button>
  );
}

/** A subscriber's signalling story (GET /subscribers/{imsi}/timeline) as a sequence, newest first. */
export function SubscriberTimeline({ imsi }: { imsi: string }) {
  const [page, setPage] = useState(1);
  const [shown, setShown] = useState<Step | undefined>();
  const format = useFormatTime();
  // Its signalling comes from the live stream at once; the 10 s refresh stays for the UPF lane's flow
  // reports, which the stream does not carry.
  useLiveReload([['subscribers', imsi, 'timeline']], SUBSCRIBER_KINDS, true, { imsi });
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
                {LANES.map((lane) => (
                  <Table.Th key={lane}>{lane}</Table.Th>
                ))}
                <Table.Th>Level</Table.Th>
                <Table.Th>Record</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {steps.map((step) => (
                <Table.Tr key={`${step.kind}-${step.source}-${step.record_id}`}>
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
                    <RecordCell step={step} imsi={imsi} open={setShown} />
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
            : shown.direction === null
              ? // A state change, session or flow: no way it went; the radio it went through, if any.
                `${shown.message}${shown.radio === null ? '' : ` through ${shown.radio}`} · ${format(shown.timestamp)}`
              : recordTitle({
                  what: shown.message,
                  direction: shown.direction,
                  peer: shown.radio ?? undefined,
                  time: format(shown.timestamp),
                })
        }
        size={1200}
      >
        {shown &&
          (shown.source === 'radio_event' ? (
            <RadioEventDetail id={shown.record_id} />
          ) : (
            <JsonTree label="details" value={shown.details ?? {}} />
          ))}
      </Modal>
    </Stack>
  );
}
