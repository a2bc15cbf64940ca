import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSerializer } from '../../src/http/serialization.ts';
import { Envelope, Paginated } from '../../src/http/schemas.ts';
import { subscriberPageJson } from '../../src/resources/subscribers/subscriber-page-json.ts';
import { SubscriberListItem } from '../../src/resources/subscribers/subscribers.schema.ts';
import type { SubscriberListItem as Item } from '../../src/resources/subscribers/subscribers.service.ts';

// The route's response schema through Fastify's own serializer factory: the bytes the page must equal.
const serialize = buildSerializer(
  undefined,
  {},
)({
  schema: Envelope(Paginated(SubscriberListItem)),
  method: 'GET',
  url: '/api/v1/subscribers',
  httpStatus: '200',
}) as (data: unknown) => string;

const bySchema = (items: Item[], page: number, perPage: number, total: number): string =>
  serialize({
    result: {
      items: items.map((item) => ({
        imsi: item.imsi,
        msisdn: item.msisdn,
        profile_name: item.profileName,
        status: {
          registered: item.registered,
          radio_access_types: item.radioAccessTypes,
          num_sessions: item.sessions,
        },
      })),
      page,
      per_page: perPage,
      total_count: total,
    },
  });

const item = (
  imsi: string,
  profileName: string,
  live?: { types: string[]; sessions: number },
  msisdn: string | null = null,
): Item => ({
  imsi,
  profileName,
  msisdn,
  registered: live !== undefined,
  radioAccessTypes: live?.types ?? [],
  sessions: live?.sessions ?? 0,
});

describe('subscriber page JSON', () => {
  it('is the bytes the response schema serialises, for registered and idle subscribers', () => {
    const items = [
      item('001010000000001', 'default'),
      item('001010000000002', 'iot.fleet-2', { types: ['5G'], sessions: 2 }, '15551234567'),
      item('001010000000003', 'x', { types: ['5G', '4G'], sessions: 0 }),
    ];
    const text = subscriberPageJson(items, 3, 100, 123_456);
    assert.equal(text, bySchema(items, 3, 100, 123_456));
    assert.deepEqual((JSON.parse(text) as { result: { items: unknown[] } }).result.items[1], {
      imsi: '001010000000002',
      msisdn: '15551234567',
      profile_name: 'iot.fleet-2',
      status: { registered: true, radio_access_types: ['5G'], num_sessions: 2 },
    });
  });

  it('escapes what JSON.stringify escapes (a restored database may hold any text)', () => {
    const strange = [
      'quote "q"',
      'back\\slash',
      'tab\tnew\nline',
      '\u0000\u001f',
      'é ü 中',
      '😀',
      'lone \ud800',
      '\udfff',
    ];
    const items = strange.map((text, index) =>
      item(`00101000000000${index}`, text, { types: [text], sessions: 1 }, text),
    );
    assert.equal(subscriberPageJson(items, 1, 25, items.length), bySchema(items, 1, 25, items.length));
  });

  it('writes an empty page', () => {
    assert.equal(subscriberPageJson([], 9, 25, 0), bySchema([], 9, 25, 0));
    assert.equal(
      subscriberPageJson([], 9, 25, 0),
      '{"result":{"items":[],"page":9,"per_page":25,"total_count":0}}',
    );
  });
});
