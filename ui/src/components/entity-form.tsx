import { Button, Select, Stack, Switch, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client.ts';
import { ErrorAlert } from './error-alert.tsx';
import { fieldOfError } from './field-error.ts';
import { bodyOf, valuesOf, type Body, type FieldSpec } from './form-values.ts';

/**
 * A create or edit form for a resource described by its fields. The service validates; its message shows
 * next to the field it names, or above the button when it names none.
 */
export function EntityForm(props: {
  fields: readonly FieldSpec[];
  item?: Record<string, unknown>;
  submitLabel: string;
  onSubmit: (body: Body) => Promise<unknown>;
  onDone: () => void;
}) {
  const mode = props.item ? 'update' : 'create';
  const [values, setValues] = useState(() => valuesOf(props.fields, props.item));
  const save = useMutation({
    mutationFn: () => props.onSubmit(bodyOf(props.fields, values, mode)),
    onSuccess: props.onDone,
  });
  const message = save.error instanceof ApiError ? save.error.message : undefined;
  const names = props.fields.map((field) => field.name);
  const errorField = message === undefined ? undefined : fieldOfError(message, names);
  return (
    <form
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <Stack>
        {props.fields.map((field) => {
          const common = {
            label: field.label,
            description: field.description,
            required: field.required,
            disabled: mode === 'update' && field.createOnly,
            error: errorField === field.name ? message : undefined,
          };
          const value = values[field.name] ?? '';
          if (field.kind === 'boolean')
            return (
              <Switch
                key={field.name}
                label={field.label}
                description={field.description}
                disabled={common.disabled}
                error={common.error}
                checked={value === 'true'}
                onChange={(event) =>
                  setValues({ ...values, [field.name]: String(event.currentTarget.checked) })
                }
              />
            );
          return field.kind === 'select' ? (
            <Select
              key={field.name}
              {...common}
              data={field.options ?? []}
              value={value || null}
              clearable={!field.required}
              onChange={(next) => setValues({ ...values, [field.name]: next ?? '' })}
            />
          ) : (
            <TextInput
              key={field.name}
              {...common}
              inputMode={field.kind === 'text' ? undefined : 'decimal'}
              value={value}
              onChange={(event) => setValues({ ...values, [field.name]: event.currentTarget.value })}
            />
          );
        })}
        {errorField === undefined && <ErrorAlert error={save.error} title="Not saved" />}
        <Button type="submit" loading={save.isPending}>
          {props.submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
