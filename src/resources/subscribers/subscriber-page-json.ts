import type { SubscriberListItem } from './subscribers.service.ts';

/** Whether JSON.stringify escapes any character of `value` (RFC 8259 section 7, and lone surrogates). */
function needsEscape(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return true;
  }
  return false;
}

/** A string as JSON text, exactly as JSON.stringify writes it. */
const quote = (value: string): string => (needsEscape(value) ? JSON.stringify(value) : `"${value}"`);

/**
 * The body of a page of the subscriber list, `{"result":{"items":[...],"page":..,"per_page":..,
 * "total_count":..}}`, written straight from the service's rows: the same bytes as the route's response
 * schema serialises (the HTTP tests compare them), without building the three objects a row the
 * serializer reads, and as one flat string, which Node measures and writes without walking a rope of
 * hundreds of pieces.
 */
export function subscriberPageJson(
  items: readonly SubscriberListItem[],
  page: number,
  perPage: number,
  total: number,
): string {
  const parts: string[] = new Array<string>(items.length);
  for (let index = 0; index < items.length; index++) {
    const item = items[index] as SubscriberListItem;
    const types = item.radioAccessTypes;
    parts[index] =
      `{"imsi":${quote(item.imsi)},"msisdn":${item.msisdn === null ? 'null' : quote(item.msisdn)},` +
      `"profile_name":${quote(item.profileName)},"status":{"registered":${item.registered},` +
      `"radio_access_types":${types.length === 0 ? '[]' : JSON.stringify(types)},"num_sessions":${item.sessions}}}`;
  }
  return `{"result":{"items":[${parts.join(',')}],"page":${page},"per_page":${perPage},"total_count":${total}}}`;
}
