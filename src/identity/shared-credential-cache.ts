import type { ChangeNotices } from '../storage/change-notices.ts';
import type { CredentialCache } from './authenticator.ts';

const TOPIC = 'credentials';

type Forgotten = { token: string } | { user: number } | { all: true };

/**
 * The authenticator's verified-token cache, kept right when several processes share the database: what
 * this process forgets (a token revoked, a user deleted or its role changed) the others forget too, and
 * everything is forgotten when notices may have been missed. The services call it after their change
 * committed, as before.
 */
export function shareCredentialCache(local: CredentialCache, notices: ChangeNotices): CredentialCache {
  notices.listen(TOPIC, (detail) => {
    const forgotten = (detail ?? {}) as Partial<Record<'token' | 'user' | 'all', unknown>>;
    if (typeof forgotten.token === 'string') local.forgetToken(forgotten.token);
    else if (Number.isSafeInteger(forgotten.user)) local.forgetUser(forgotten.user as number);
    // Anything else (a notice from a newer version, or garbage) forgets everything: never too little.
    else local.forgetAll();
  });
  notices.onMissed(() => local.forgetAll());
  const tell = (forgotten: Forgotten) => notices.send(TOPIC, forgotten);
  return {
    forgetToken(publicId) {
      local.forgetToken(publicId);
      tell({ token: publicId });
    },
    forgetUser(userId) {
      local.forgetUser(userId);
      tell({ user: userId });
    },
    forgetAll() {
      local.forgetAll();
      tell({ all: true });
    },
  };
}
