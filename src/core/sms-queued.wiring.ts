import type { SmsStore } from '../network/ports/sms-store.ts';
import type { ChangeNotices } from '../storage/change-notices.ts';

/** The change notice naming the IMSI a short message was stored for. */
const SMS_QUEUED_NOTICE = 'sms.queued';

/**
 * Short messages stored for a UE reach the member of the AMF set whose SMSF serves it (docs/sms.md,
 * "Across an AMF set"): each process tells the others the recipient's IMSI by a change notice once the
 * message is stored (one its SMSF stored from a UE, or one the operator queued through its API), and
 * hears theirs. `queued` listeners hear both this process's messages and the others'; the SMSF, told,
 * delivers when it serves that UE and does nothing otherwise. On SQLite (one process) no notice goes
 * anywhere. Returns the store to give the SMSF and `queued`.
 */
export function wireSmsQueued(deps: {
  notices: ChangeNotices;
  store: SmsStore;
  /** This process's API: listeners hear the recipient of each message the operator queued. */
  onApiQueued: (listener: (imsi: string) => void) => () => void;
}) {
  const { notices, store } = deps;
  deps.onApiQueued((imsi) => notices.send(SMS_QUEUED_NOTICE, imsi));
  return {
    store: {
      ...store,
      async save(message) {
        const saved = await store.save(message);
        if (saved.destinationImsi !== undefined) notices.send(SMS_QUEUED_NOTICE, saved.destinationImsi);
        return saved;
      },
    } satisfies SmsStore,
    /** Calls `listener` with the recipient's IMSI of each message stored by any process; returns its stop. */
    queued(listener: (imsi: string) => void): () => void {
      const local = deps.onApiQueued(listener);
      // From another process: checked, as every notice's detail is.
      const remote = notices.listen(SMS_QUEUED_NOTICE, (detail) => {
        if (typeof detail === 'string' && /^\d{5,15}$/.test(detail)) listener(detail);
      });
      return () => {
        local();
        remote();
      };
    },
  };
}
