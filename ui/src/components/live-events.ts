import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { api } from '../api/client.ts';
import { runEventStream, type StreamAnswer } from '../api/event-stream.ts';
import type { SseEvent } from '../api/sse.ts';
import { usePreferences } from './preferences.ts';

/**
 * The network's live events (GET /events/stream), one connection for the whole tab, open while a page
 * listens. EventSource cannot send the bearer token, so the body of a fetch is read as it arrives.
 */
type Listener = (event: SseEvent) => void;
const listeners = new Set<Listener>();
const openWatchers = new Set<() => void>();
let connection: AbortController | undefined;
let isOpen = false;

async function* textChunks(body: ReadableStream<Uint8Array>): AsyncIterable<string> {
  const reader = body.getReader();
  // `stream: true` keeps a character cut between two chunks for the next one.
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
}

async function openStream(lastEventId: string | undefined, signal: AbortSignal): Promise<StreamAnswer> {
  const answer = await api.GET('/api/v1/events/stream', {
    parseAs: 'stream',
    headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId },
    signal,
  });
  const body = answer.response.ok ? answer.response.body : null;
  if (!body) await answer.response.body?.cancel();
  return { status: answer.response.status, chunks: body ? textChunks(body) : undefined };
}

function setOpen(open: boolean): void {
  isOpen = open;
  for (const watcher of openWatchers) watcher();
}

function listen(listener: Listener): () => void {
  listeners.add(listener);
  if (!connection) {
    const controller = new AbortController();
    connection = controller;
    void runEventStream({
      open: openStream,
      // Each listener picks the kinds that carry its records (and `gap`: events were missed).
      onEvent: (event) => listeners.forEach((each) => each(event)),
      // A connection being closed says nothing about the one that may have replaced it.
      onOpen: (open) => {
        if (connection === controller) setOpen(open);
      },
      signal: controller.signal,
    }).finally(() => {
      if (connection !== controller) return;
      connection = undefined;
      setOpen(false);
    });
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      connection?.abort();
      connection = undefined;
      setOpen(false);
    }
  };
}

/**
 * Ends the tab's stream now (signing out): its own sign-out writes an audit entry, which the stream would
 * carry to the audit lists of an admin, reloading them with a session already closed (a 401). The pages
 * left listening open it again when they next listen.
 */
export function closeLiveEvents(): void {
  connection?.abort();
  connection = undefined;
  setOpen(false);
}

/**
 * The stream's kinds that carry each record list's records, as they are written (docs/api.md, "The
 * live event stream"): a list reloads when one of its records arrives.
 */
export const RECORD_KINDS = {
  radioEvents: ['ngap.message'],
  subscriberLogs: ['nas.message'],
  radioLogs: ['radio.log'],
  // Sent only to the roles that read the audit log, the only ones its page shows to.
  auditLogs: ['audit'],
} as const;

/** The stream's kinds that carry one subscriber's signalling story (its timeline's steps). */
export const SUBSCRIBER_KINDS = [
  'nas.message',
  'ngap.message',
  'ue.registered',
  'ue.deregistered',
  'ue.rejected',
  'session.established',
  'session.released',
] as const;

/**
 * Which events of the kinds reload a list: those naming one subscriber (its timeline), or only warnings
 * and errors (the dashboard's, which lists no other record of those kinds).
 */
export interface LiveMatch {
  imsi?: string;
  warnings?: boolean;
}

/** Whether an event's data matches (an event that cannot be read matches nothing). */
function matches(event: SseEvent, match: LiveMatch): boolean {
  let data: { imsi?: unknown; level?: unknown };
  try {
    data = JSON.parse(event.data) as typeof data;
  } catch {
    return false;
  }
  if (match.imsi !== undefined && data.imsi !== match.imsi) return false;
  return !match.warnings || data.level === 'warn' || data.level === 'error';
}

/**
 * A registration brings a burst of records: the lists reload at the first of a burst, and once more this
 * long after it, for what the burst added meanwhile.
 */
const RELOAD_DELAY_MS = 250;
const POLL_MS = 10_000;

/**
 * Lists kept current by the live stream while the refresh is live: the queries under `keys` reload after
 * each burst of events of `kinds` (the kinds that carry their records), after `gap`, and on resuming. The
 * answer is their refetch interval: none while the stream is open (it carries every record they list) or
 * paused, 10 s while the stream is not open (a role without the records, a service restarting). With
 * `match`, only the events it matches (and `gap`) reload them.
 */
export function useLiveReload(
  keys: readonly QueryKey[],
  kinds: readonly string[],
  enabled = true,
  match?: LiveMatch,
): number | false {
  const { live } = usePreferences();
  const queryClient = useQueryClient();
  const open = useSyncExternalStore(
    (watcher) => {
      openWatchers.add(watcher);
      return () => openWatchers.delete(watcher);
    },
    () => isOpen,
  );
  // The first listening follows the page's own first load; a later one (after a pause) reloads.
  const listened = useRef(false);
  const keysText = JSON.stringify(keys);
  const kindsText = JSON.stringify(kinds);
  const matchText = match === undefined ? undefined : JSON.stringify(match);
  useEffect(() => {
    if (!live || !enabled) return;
    const reloaded = JSON.parse(keysText) as QueryKey[];
    const wanted = new Set<string>([...(JSON.parse(kindsText) as string[]), 'gap']);
    const only = matchText === undefined ? undefined : (JSON.parse(matchText) as LiveMatch);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reload = () => {
      for (const queryKey of reloaded) void queryClient.invalidateQueries({ queryKey });
    };
    if (listened.current) reload();
    listened.current = true;
    const stop = listen((event) => {
      if (!wanted.has(event.event) || timer !== undefined) return;
      if (only !== undefined && event.event !== 'gap' && !matches(event, only)) return;
      reload();
      timer = setTimeout(() => {
        timer = undefined;
        reload();
      }, RELOAD_DELAY_MS);
    });
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [live, enabled, keysText, kindsText, matchText, queryClient]);
  if (!live) return false;
  return enabled && open ? false : POLL_MS;
}
