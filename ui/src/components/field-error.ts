/**
 * The form field a service error names, so the message shows next to it. The service's messages start with
 * the field at fault (`sst must be <= 255`, `body/imsi must match ...`, `unknown field "x"`); a message
 * naming no field of the form belongs to the whole form.
 */
export function fieldOfError(message: string, fields: readonly string[]): string | undefined {
  const subject = /^(?:body\/)?([A-Za-z_][\w-]*)/.exec(message)?.[1];
  return subject !== undefined && fields.includes(subject) ? subject : undefined;
}
