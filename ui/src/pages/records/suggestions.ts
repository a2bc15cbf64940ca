import { useQuery } from '@tanstack/react-query';
import { api, result } from '../../api/client.ts';
import { distinct } from './record-title.ts';

/** The first 100 subscribers' IMSIs: what an IMSI picker suggests (a record may name one deleted since). */
export function useImsis(): string[] {
  const list = useQuery({
    queryKey: ['subscribers', 'imsis'],
    queryFn: () => result(api.GET('/api/v1/subscribers', { params: { query: { per_page: 100 } } })),
  });
  return distinct(list.data?.items, (subscriber) => subscriber.imsi);
}
