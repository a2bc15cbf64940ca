import { Alert } from '@mantine/core';
/** A failed request said in words: the service's message (ApiError), or that it could not be reached. */
export function ErrorAlert({ error, title = 'Request failed' }: { error: unknown; title?: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : 'something went wrong';
  return (
    <Alert color="red" title={title} role="alert">
      {message}
    </Alert>
  );
}
