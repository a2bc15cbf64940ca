/**
 * Domain errors thrown by services. They carry no HTTP knowledge; src/http/error-handler.ts is the one
 * place that maps them to statuses. Messages are for a person and name the field or resource at fault.
 */
export class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A value breaks a rule the schema cannot express (400). */
export class InvalidError extends DomainError {}

/** Missing, invalid, expired or revoked credentials (401). */
export class UnauthorizedError extends DomainError {}

/** Authenticated, but not allowed (403). */
export class ForbiddenError extends DomainError {}

/** The named resource does not exist (404). */
export class NotFoundError extends DomainError {}

/** The change conflicts with the current state: duplicates, references, last admin (409). */
export class ConflictError extends DomainError {}

/** What was sent is larger than the service accepts (413). */
export class TooLargeError extends DomainError {}

/** Too many attempts; the caller may retry after `retryAfterSeconds` (429). */
export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The service cannot take this work now, though nothing is wrong with it; retry after `retryAfterSeconds` (503). */
export class OverloadedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
