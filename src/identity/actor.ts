/** A part of PMN Core that changes things on its own, named as the audit log shows it. */
type SystemComponent = 'amf' | 'smf' | 'upf' | 'lmf' | 'retention' | 'positioning';

/** An operator acting through the API: their e-mail and the client address. */
export interface PersonActor {
  kind: 'person';
  email: string;
  ip: string;
}

/** A network function or background job acting on its own. */
interface SystemActor {
  kind: 'system';
  component: SystemComponent;
}

/** Who performs a change, as the audit log records it. */
export type Actor = PersonActor | SystemActor;

export const personActor = (email: string, ip: string): PersonActor => ({ kind: 'person', email, ip });

/** The audit log's `actor` and `ip` columns: a system component has no client address. */
export function auditIdentity(actor: Actor): { actor: string; ip: string } {
  switch (actor.kind) {
    case 'person':
      return { actor: actor.email, ip: actor.ip };
    case 'system':
      return { actor: actor.component, ip: '' };
  }
}
