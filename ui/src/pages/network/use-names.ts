import { useQuery } from '@tanstack/react-query';
import { api, result } from '../../api/client.ts';

/** Names a form may refer to (a policy's data network, profile and slice): the first 100 of each. */
export function useNames(kind: 'data-networks' | 'profiles' | 'slices'): string[] {
  const names = useQuery({
    queryKey: [kind, 'names'],
    queryFn: async (): Promise<string[]> => {
      switch (kind) {
        case 'data-networks': {
          const answer = await result(
            api.GET('/api/v1/networking/data-networks', { params: { query: { per_page: 100 } } }),
          );
          return answer.items.map((item) => item.name);
        }
        case 'profiles':
          return (await result(api.GET('/api/v1/profiles'))).map((item) => item.name);
        case 'slices': {
          const answer = await result(api.GET('/api/v1/slices', { params: { query: { per_page: 100 } } }));
          return answer.items.map((item) => item.name);
        }
      }
    },
  });
  return names.data ?? [];
}
