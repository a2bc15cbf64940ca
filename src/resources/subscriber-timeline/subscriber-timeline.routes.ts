import type { App } from '../../http/app-types.ts';
import { timestampWindowOf } from '../../http/record-query.ts';
import { formatRecordTimestamp } from '../../http/record-time.ts';
import { InvalidError } from '../../errors.ts';
import { Envelope, ok, Paginated, paginated, pageWindow } from '../../http/schemas.ts';
import { ImsiParams } from '../subscribers/subscribers.schema.ts';
import { SubscriberTimelineItem, SubscriberTimelineQuery } from './subscriber-timeline.schema.ts';
import { createSubscriberTimelineService, type TimelineItem } from './subscriber-timeline.service.ts';
import { TIMELINE_KINDS, type TimelineKind } from './timeline-items.ts';

const KNOWN = new Set<string>(TIMELINE_KINDS);

/** The `kinds` filter: comma-separated, each one known (a 400 names the first unknown one). */
function kindsOf(text: string | undefined): ReadonlySet<TimelineKind> | undefined {
  if (text === undefined) return undefined;
  const kinds = text.split(',').map((kind) => kind.trim());
  const unknown = kinds.find((kind) => !KNOWN.has(kind));
  if (unknown !== undefined)
    throw new InvalidError(
      `kinds: unknown kind ${JSON.stringify(unknown)}; known: ${TIMELINE_KINDS.join(', ')}`,
    );
  return new Set(kinds as TimelineKind[]);
}

const toItem = (item: TimelineItem) => ({
  timestamp: formatRecordTimestamp(item.timestamp),
  kind: item.kind,
  direction: item.direction,
  message: item.message,
  level: item.level,
  radio: item.radio,
  summary: item.summary,
  source: item.source,
  record_id: item.recordId,
  linked_record_id: item.linkedRecordId,
  explanation: item.explanation,
  details: item.details,
});

/** The route builds its service from the core's: it reads records and configuration, and owns nothing. */
export function subscriberTimelineRoutes(deps: Parameters<typeof createSubscriberTimelineService>[0]) {
  const timeline = createSubscriberTimelineService(deps);

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/subscribers/:imsi/timeline',
      {
        // The subscriber logs' permission: the timeline shows them and the radio events.
        config: { permission: 'records:read' },
        schema: {
          tags: ['subscribers'],
          summary:
            "A subscriber's NAS and NGAP messages, state changes, sessions and flow reports, in time order",
          params: ImsiParams,
          querystring: SubscriberTimelineQuery,
          response: { 200: Envelope(Paginated(SubscriberTimelineItem)) },
        },
      },
      async (request) => {
        const { limit, offset } = pageWindow(request.query);
        const window = timestampWindowOf(request.query);
        const order = request.query.order ?? 'newest';
        const kinds = kindsOf(request.query.kinds);
        const { items, total } = await timeline.list(
          request.params.imsi,
          { ...window, order, ...(kinds === undefined ? {} : { kinds }) },
          limit,
          offset,
        );
        return ok(paginated(items.map(toItem), total, request.query));
      },
    );
  };
}
