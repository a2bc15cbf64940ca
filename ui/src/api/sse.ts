/** One Server-Sent Event as the stream sent it (WHATWG HTML, "Interpreting an event stream"). */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * An incremental reader of `text/event-stream` text: feed it chunks as they arrive, it returns the events
 * each completes. Lines end in LF, CRLF or CR; a line starting with `:` is a comment (the heartbeat); an
 * event without `event:` is a `message`; several `data:` lines join with LF; a blank line dispatches.
 */
export function createSseParser(): (chunk: string) => SseEvent[] {
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  return (chunk) => {
    buffer += chunk;
    const events: SseEvent[] = [];
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      // A CR at the end of a chunk may be the first half of CRLF: wait for the next chunk.
      if (end < 0 || (buffer[end] === '\r' && end === buffer.length - 1)) break;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (data.length > 0) events.push({ id, event: event || 'message', data: data.join('\n') });
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'id' && !value.includes('\0')) id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    return events;
  };
}
