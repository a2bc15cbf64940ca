import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, result } from '../api/client.ts';

/**
 * The subscriber's MSISDN, set, changed or removed in place. PUT /subscribers/{imsi} replaces the profile
 * too, so the current one is sent back; an empty field sends null, which removes the number.
 */
export function EditMsisdn(props: { imsi: string; profile: string; current: string | null }) {
  const { imsi, profile, current } = props;
  const queryClient = useQueryClient();
  const [msisdn, setMsisdn] = useState(current ?? '');
  const save = useMutation({
    mutationFn: (value: string) =>
      result(
        api.PUT('/api/v1/subscribers/{imsi}', {
          params: { path: { imsi } },
          body: { profile_name: profile, msisdn: value === '' ? null : value },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['subscribers'] }),
  });
  return (
    <Stack gap="xs">
      <Group align="flex-end">
        <TextInput
          label="MSISDN"
          description="E.164: up to 15 digits, country code first; empty for none"
          value={msisdn}
          error={save.error?.message}
          onChange={(event) => setMsisdn(event.currentTarget.value.trim())}
        />
        <Button
          variant="light"
          disabled={msisdn === (current ?? '')}
          loading={save.isPending}
          onClick={() => save.mutate(msisdn)}
        >
          Save MSISDN
        </Button>
      </Group>
      {save.isSuccess && <Text size="sm">{save.variables === '' ? 'MSISDN removed.' : 'MSISDN saved.'}</Text>}
    </Stack>
  );
}
