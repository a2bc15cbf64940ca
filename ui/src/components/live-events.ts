import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import { api } from '../api/client.ts';
import { runEventStream, type StreamAnswer } from '../api/event-stream.ts';
import { usePreferences } from './preferences.ts';

/**
 * The network's live events (GET /events/stream), one connection for the whole tab, open while a page
 * listens. EventSource cannot send the bearer token, so the body of a fetch is read as it arrives.
 */
type Listener = () => void;
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
      // Every kind (and `gap`, events missed) may mean new records: each listener reloads its lists.
      onEvent: () => listeners.forEach((each) => each()),
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
 * An event may arrive before its records are written (the records writer batches them a few ms later), and
 * a registration brings a burst of events: the lists reload at the first event of a burst, and once more
 * this long after it, for what the burst added meanwhile.
 */
const RELOAD_DELAY_MS = 250;
/** While the stream is open, a slow poll still picks up what it does not carry (NGAP-only messages, audit logs). */
const STREAM_OPEN_POLL_MS = 60_000;
const POLL_MS = 10_000;

/**
 * Lists kept current by the live stream while the refresh is live: the queries under `keys` reload after
 * each burst of events; the answer is their refetch interval (slow while the stream is open, 10 s while
 * it is not, none when paused).
 */
export function useLiveReload(keys: readonly QueryKey[], enabled = true): number | false {
  const { live } = usePreferences();
  const queryClient = useQueryClient();
  const open = useSyncExternalStore(
    (watcher) => {
      openWatchers.add(watcher);
      return () => openWatchers.delete(watcher);
    },
    () => isOpen,
  );
  const keysText = JSON.stringify(keys);
  useEffect(() => {
    if (!live || !enabled) return;
    const reloaded = JSON.parse(keysText) as QueryKey[];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reload = () => {
      for (const queryKey of reloaded) void queryClient.invalidateQueries({ queryKey });
    };
    const stop = listen(() => {
      if (timer !== undefined) return;
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
  }, [live, enabled, keysText, queryClient]);
  if (!live) return false;
  return enabled && open ? STREAM_OPEN_POLL_MS : POLL_MS;
}
