// A session as the API shows it (network state hears it through the network events).
import type { PduSession } from '../network-state.ts';
import type { SmfContext } from './smf-context.ts';
import type { SmSession } from './session-table.ts';

const sdText = (sd: number | undefined): string => (sd === undefined ? '' : sd.toString(16).padStart(6, '0'));

export const apiView = (s: SmSession): PduSession => ({
  id: s.pduSessionId,
  radioAccessType: '5G',
  status: s.state.kind === 'active' ? 'active' : 'inactive',
  ipType: s.ipType,
  ipv4Address: s.resources.ipv4 ?? '',
  ipv6Prefix: s.resources.ipv6Prefix === undefined ? '' : `${s.resources.ipv6Prefix}/64`,
  dataNetwork: s.dnn,
  slice: { sst: s.sNssai.sst, sd: sdText(s.sNssai.sd) },
  ambrUplink: s.policy.ambrUplink,
  ambrDownlink: s.policy.ambrDownlink,
});

/** The session changed: policy or AMBR, user plane activated or deactivated. */
export const publish = (ctx: Pick<SmfContext, 'events'>, s: SmSession): void =>
  ctx.events.emit('session.modified', { supi: s.supi, session: apiView(s) });
