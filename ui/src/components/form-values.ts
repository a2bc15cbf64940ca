/**
 * The fields of a resource form and how their text becomes the JSON body the service takes. The inputs
 * hold text; the body carries numbers where the API wants integers or numbers, and leaves an empty
 * optional field out (the service then applies its default, or no value).
 */
export interface FieldSpec {
  name: string;
  label: string;
  kind: 'text' | 'integer' | 'number' | 'select' | 'boolean';
  required?: boolean;
  description?: string;
  /** The choices of a `select` field. */
  options?: readonly string[];
  /** Only on create: the field names the resource (its path key) and cannot change. */
  createOnly?: boolean;
  /** A new resource's value, as the service's default (`'true'` for a boolean the service turns on). */
  initial?: string;
}

export type FormValues = Record<string, string>;
export type Body = Record<string, string | number | boolean>;

/** The form's text for an existing resource, or empty text for a new one. */
export function valuesOf(fields: readonly FieldSpec[], item?: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const value = item === undefined ? field.initial : item[field.name];
    values[field.name] =
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : '';
  }
  return values;
}

/**
 * The request body of the form. Numbers are sent as typed, even when they are not numbers (`12a`), so the
 * service's own message about the field is what the user sees; only blank optional fields are left out.
 */
export function bodyOf(fields: readonly FieldSpec[], values: FormValues, mode: 'create' | 'update'): Body {
  const body: Body = {};
  for (const field of fields) {
    if (mode === 'update' && field.createOnly) continue;
    // Always sent: PUT replaces the resource, so a boolean left out would fall back to its default.
    if (field.kind === 'boolean') {
      body[field.name] = values[field.name] === 'true';
      continue;
    }
    const text = (values[field.name] ?? '').trim();
    if (text === '' && !field.required) continue;
    if (field.kind === 'integer' || field.kind === 'number') {
      const number = Number(text);
      body[field.name] = text !== '' && Number.isFinite(number) ? number : text;
    } else {
      body[field.name] = text;
    }
  }
  return body;
}
