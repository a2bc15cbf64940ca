// One PDU session's resources (docs/sessions.md "Resources"): its address leases, uplink TEID and the
// UPF's session with its rules, taken one by one during establishment and given back together, once,
// whatever ends the session (or the establishment that was taking them).
import type { Logger } from 'pino';
import type { AddressLeases, PoolFamily } from '../ports/address-leases.ts';
import type { TunnelEndpointIds } from '../ports/tunnel-endpoints.ts';
import type { SessionRequest, UpfResult, UpfSession } from '../upf/ports/session-control.ts';
import type { UserPlane } from './ports/user-plane.ts';

/** Where the resources come from. */
interface ResourceStores {
  addresses: AddressLeases;
  teids: TunnelEndpointIds;
  userPlane: UserPlane | undefined;
  logger: Logger;
}

export class SessionResources {
  readonly #stores: ResourceStores;
  readonly #owner: { supi: string; pduSessionId: number };
  #ipv4: string | undefined;
  #ipv6Prefix: string | undefined;
  #uplinkTeid: number | undefined;
  #upfSessionId: number | undefined;
  #released = false;

  constructor(stores: ResourceStores, owner: { supi: string; pduSessionId: number }) {
    this.#stores = stores;
    this.#owner = owner;
  }

  get ipv4(): string | undefined {
    return this.#ipv4;
  }

  /** The session's /64, as its first address. */
  get ipv6Prefix(): string | undefined {
    return this.#ipv6Prefix;
  }

  /** The UPF's uplink TEID; asking before `allocateTeid` succeeded is the SMF's bug. */
  get uplinkTeid(): number {
    if (this.#uplinkTeid === undefined) throw new Error('SMF: a session without its uplink TEID');
    return this.#uplinkTeid;
  }

  /** The UPF's session id; asking before `installUpfSession` succeeded is the SMF's bug. */
  get upfSessionId(): number {
    if (this.#upfSessionId === undefined) throw new Error('SMF: a session without its UPF session');
    return this.#upfSessionId;
  }

  get released(): boolean {
    return this.#released;
  }

  /** An address (IPv4) or /64 (IPv6) from `cidr`; false when the pool has none (or is not usable). */
  async leaseAddress(family: PoolFamily, cidr: string): Promise<boolean> {
    const got = await this.#stores.addresses.lease(family, cidr, this.#owner.supi);
    if (!got.ok) return false;
    if (this.#released) {
      this.#giveBack('address', got.address);
      return false;
    }
    if (family === 'ipv4') this.#ipv4 = got.address;
    else this.#ipv6Prefix = got.address;
    return true;
  }

  /**
   * The address (IPv4) or /64 (IPv6) `address` of `cidr` itself: a session taken over from another SMF
   * of the set keeps its address (restoration.ts). False when it is held or not one of the pool's.
   */
  async holdAddress(family: PoolFamily, cidr: string, address: string): Promise<boolean> {
    if (!(await this.#stores.addresses.hold(family, cidr, address, this.#owner.supi))) return false;
    if (this.#released) {
      this.#giveBack('address', address);
      return false;
    }
    if (family === 'ipv4') this.#ipv4 = address;
    else this.#ipv6Prefix = address;
    return true;
  }

  /** The uplink TEID; false when none is free. */
  async allocateTeid(): Promise<boolean> {
    const teid = await this.#stores.teids.allocate();
    if (teid === undefined) return false;
    if (this.#released) {
      this.#giveBack('teid', teid);
      return false;
    }
    this.#uplinkTeid = teid;
    return true;
  }

  /** The UPF's session with the addresses and TEID held here. */
  installUpfSession(
    request: Omit<SessionRequest, 'ueIpv4' | 'ueIpv6Prefix' | 'uplinkTeid'>,
  ): UpfResult<UpfSession> {
    const { userPlane } = this.#stores;
    if (userPlane === undefined || this.#released) throw new Error('SMF: a UPF session without a user plane');
    const installed = userPlane.establishSession({
      ...request,
      ...(this.#ipv4 === undefined ? {} : { ueIpv4: this.#ipv4 }),
      ...(this.#ipv6Prefix === undefined ? {} : { ueIpv6Prefix: this.#ipv6Prefix }),
      uplinkTeid: this.uplinkTeid,
    });
    if (installed.ok) this.#upfSessionId = installed.value.id;
    return installed;
  }

  /**
   * The UPF's rules, then the TEID and the addresses (kept leased with `keepAddresses`). True the
   * first time; every later call frees nothing and gives false.
   */
  release(keepAddresses = false): boolean {
    if (this.#released) return false;
    this.#released = true;
    const { userPlane, logger } = this.#stores;
    if (this.#upfSessionId !== undefined && userPlane !== undefined) {
      const released = userPlane.release(this.#upfSessionId);
      // A stopped UPF (the service stopping: it stops first) took every session's rules with it.
      if (!released.ok && released.error !== 'unknown-session' && released.error !== 'not-started')
        logger.error({ ...this.#owner, error: released.error }, 'SMF: UPF release failed');
    }
    if (this.#uplinkTeid !== undefined) this.#giveBack('teid', this.#uplinkTeid);
    if (keepAddresses) return true;
    if (this.#ipv4 !== undefined) this.#giveBack('address', this.#ipv4);
    if (this.#ipv6Prefix !== undefined) this.#giveBack('address', this.#ipv6Prefix);
    return true;
  }

  /** Gives a lease back; one the store failed to end stays held, and the log says which. */
  #giveBack(kind: 'address' | 'teid', value: string | number): void {
    const { addresses, teids, logger } = this.#stores;
    const released = kind === 'address' ? addresses.release(value as string) : teids.release(value as number);
    released.catch((error: unknown) =>
      logger.error({ err: error, kind, value }, 'SMF: a lease was not ended'),
    );
  }
}
