import { useQuery } from '@tanstack/react-query';
import { api, result } from '../api/client.ts';
import { abilitiesOf, type Abilities } from './roles.ts';

/** The signed-in user and what its role may do. */
export function useMe(): { email: string; roleId: number; can: Abilities } | undefined {
  const me = useQuery({ queryKey: ['me'], queryFn: () => result(api.GET('/api/v1/users/me')) });
  return me.data && { email: me.data.email, roleId: me.data.role_id, can: abilitiesOf(me.data.role_id) };
}
