import { describe, expect, it } from 'vitest';
import { createSseParser } from './sse.ts';

describe('Server-Sent Events parser', () => {
  it('reads id, event and data, skips comments, and dispatches at the blank line', () => {
    const parse = createSseParser();
    expect(parse(': heartbeat\n\nid: 7\nevent: ue.registered\ndata: {"imsi":"1"}\n\n')).toEqual([
      { id: '7', event: 'ue.registered', data: '{"imsi":"1"}' },
    ]);
  });

  it('joins an event cut across chunks, even between CR and LF, and several data lines', () => {
    const parse = createSseParser();
    expect(parse('id: 8\r\nevent: gap\r')).toEqual([]);
    expect(parse('\ndata: {"after":1,\r\ndata: "next":9}\r\n')).toEqual([]);
    expect(parse('\r\n')).toEqual([{ id: '8', event: 'gap', data: '{"after":1,\n"next":9}' }]);
  });

  it('names an event without `event:` a message, keeps the last id, and drops an event without data', () => {
    const parse = createSseParser();
    expect(parse('id: 3\nevent: x\n\ndata:plain\n\n')).toEqual([
      { id: '3', event: 'message', data: 'plain' },
    ]);
  });
});
