import { Button, Stack } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, ApiError } from '../../api/client.ts';
import { download } from '../../components/download.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

/**
 * "Download capture": the radio events a query selects (the list's filters, one subscriber's `imsi`, one
 * radio's `radio`) as a pcapng file for Wireshark (GET /ran/events/export.pcapng). A refusal (another
 * protocol than NGAP, more events than the export's bound) is shown in the service's words.
 */
export function DownloadCapture({
  query,
  filename = 'radio-events.pcapng',
}: {
  query: Record<string, string>;
  filename?: string;
}) {
  const capture = useMutation({
    mutationFn: async () => {
      const answer = await api.GET('/api/v1/ran/events/export.pcapng', {
        params: { query },
        parseAs: 'blob',
      });
      if (!answer.data) {
        const message = (answer.error as { error?: string } | undefined)?.error;
        throw new ApiError(
          answer.response.status,
          message ?? `the service answered ${answer.response.status}`,
        );
      }
      download(answer.data, filename);
    },
  });
  return (
    <Stack gap={4}>
      <Button variant="outline" loading={capture.isPending} onClick={() => capture.mutate()}>
        Download capture
      </Button>
      <ErrorAlert error={capture.error} title="No capture" />
    </Stack>
  );
}
