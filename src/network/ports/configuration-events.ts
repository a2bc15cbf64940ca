/**
 * What the operator changed in the configuration, as the network functions hear of it: published once
 * the change has committed, never for one that rolled back. The AMF deregisters a deleted subscriber
 * or one whose profile no longer allows it, the SMF modifies or releases the sessions a policy, profile
 * or pool change touches, and the AMF tells connected radios of a new PLMN, TAC or slice.
 */
export type ConfiguredResource =
  | 'subscriber'
  | 'profile'
  | 'policy'
  | 'slice'
  | 'data-network'
  | 'operator'
  /** The SMSC link's configuration (docs/sms.md): the link binds again with it. */
  | 'smsc-link';

export interface ConfigurationChange {
  resource: ConfiguredResource;
  change: 'created' | 'changed' | 'deleted';
  /** The resource's name (the IMSI of a subscriber; empty for the operator), after the change. */
  name: string;
  /** The name before a rename (data networks can be renamed). */
  previousName?: string;
}

export type ConfigurationListener = (change: ConfigurationChange) => void;

/** The consumers' side: subscribe, and unsubscribe with the returned function. */
export interface ConfigurationEvents {
  subscribe(listener: ConfigurationListener): () => void;
}

/** The services' side: publish after commit. */
export interface ConfigurationChanges {
  publish(change: ConfigurationChange): void;
}
