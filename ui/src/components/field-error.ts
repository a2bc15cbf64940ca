/**
 * The form field a service error names, so the message shows next to it. The service's messages start with
 * the field at fault (`sst must be <= 255`, `body/imsi must match ...`, `unknown field "x"`); a message
 * naming no field of the form belongs to the whole form.
 */
export function fieldOfError(message: string, fields: readonly string[]): string | undefined {
  const subject = /^(?:body\/)?([A-Za-z_][\w-]*)/.exec(message)?.[1];
  return subject !== undefined && fields.includes(subject) ? subject : undefined;
}

/**
 * Where a failed request's message goes in a form: next to the field it names (`of`), or, naming none,
 * above the form (`form`, the error itself, for ErrorAlert).
 */
export function errorsOf(
  error: unknown,
  fields: readonly string[],
): { of: (field: string) => string | undefined; form: unknown } {
  const message = error instanceof Error ? error.message : undefined;
  const field = message === undefined ? undefined : fieldOfError(message, fields);
  return {
    of: (name) => (field === name ? message : undefined),
    form: field === undefined ? error : undefined,
  };
}
