import { Type, type Static, type TSchema } from 'typebox';

/** Every success body: `{ result: ... }`. */
export const Envelope = <T extends TSchema>(result: T) =>
  Type.Object({ result }, { additionalProperties: false });

/** `result` of create, update, delete and clear operations. */
export const MessageResult = Type.Object({ message: Type.String() });

export const ErrorBody = Type.Object({
  error: Type.String({ description: 'What went wrong, naming the field or resource at fault' }),
});

/** The deepest page a list serves (100 million items at 100 per page). */
const MAX_PAGE = 1_000_000;

export const PaginationQuery = Type.Object({
  page: Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE,
    default: 1,
    description: `1-based page index, at most ${MAX_PAGE}`,
  }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'items per page' }),
});
type Pagination = Static<typeof PaginationQuery>;

/** A paginated list: the items of one page, the applied pagination and the count of all matches. */
export const Paginated = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total_count: Type.Integer(),
  });

export function pageWindow(query: Pagination): { limit: number; offset: number } {
  return { limit: query.per_page, offset: (query.page - 1) * query.per_page };
}

export function paginated<T>(items: T[], total: number, query: Pagination) {
  return { items, page: query.page, per_page: query.per_page, total_count: total };
}

export function ok<T>(result: T): { result: T } {
  return { result };
}

export function message(text: string): { result: { message: string } } {
  return { result: { message: text } };
}

export const EmailString = Type.String({
  format: 'email',
  maxLength: 254,
  'x-error': 'must be an e-mail address',
});
export const PasswordString = Type.String({
  minLength: 8,
  maxLength: 256,
  'x-error': 'must have 8 to 256 characters',
});

export const RetentionDays = Type.Object({
  days: Type.Integer({ minimum: 1, 'x-error': 'must be a positive integer' }),
});

/** How a non-JSON response is described; its payload is not typed (a Buffer or a stream is sent). */
interface DescribedResponse {
  description: string;
  content: Record<string, { schema: unknown }>;
}

/** A response that is a file to download (pprof profiles, database backups), for the OpenAPI document. */
export function FileResponse(description: string, contentType: string): DescribedResponse {
  return { description, content: { [contentType]: { schema: Type.String({ format: 'binary' }) } } };
}

/** A plain-text (or HTML) response, for the OpenAPI document. */
export function TextResponse(description: string, contentType = 'text/plain'): DescribedResponse {
  return { description, content: { [contentType]: { schema: Type.String() } } };
}

/** A `YYYY-MM-DD` query parameter; services check the date exists (validation/calendar-date.ts). */
export const CalendarDate = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  'x-error': 'must be a date in the form YYYY-MM-DD',
});

/** A 204 response: no body (the OpenAPI document shows no content). */
export const NoContent = Type.Null({ description: 'No body' });
