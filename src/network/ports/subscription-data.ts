/** One S-NSSAI; `sd` is 6 lower-case hex digits or absent. */
export interface Snssai {
  sst: number;
  sd?: string;
}

/** A policy that authorises the subscriber's profile towards one data network (decisions section 9). */
export interface AuthorisedSession {
  policy: string;
  dataNetwork: string;
  /** The slice the policy is limited to, or undefined for any slice. */
  slice: Snssai | undefined;
  /** Session AMBR in the API's bitrate form, e.g. `200 Mbps`. */
  ambrUplink: string;
  ambrDownlink: string;
  /** 5QI and ARP priority level of the default QoS flow. */
  var5qi: number;
  arp: number;
}

/** The UDM's subscription data of one subscriber: its profile and the sessions it may establish. */
export interface SubscriptionData {
  imsi: string;
  profile: {
    name: string;
    /** IPv4 pool (CIDR) the profile's sessions take addresses from. */
    ueIpPool: string;
    /** IPv6 prefix (CIDR, /64 or shorter) each IPv6 session takes a /64 from; absent: IPv4 only. */
    ueIpv6Pool?: string;
    dns: string;
    mtu: number;
    /** UE AMBR in bitrate form. */
    ambrUplink: string;
    ambrDownlink: string;
    var5qi: number;
    priorityLevel: number;
  };
  /** Every policy that authorises this profile, by name. */
  authorisedSessions: AuthorisedSession[];
}

export interface SubscriptionDataPort {
  /** The subscriber's profile and authorising policies in one consistent read; undefined when unknown. */
  getSubscriptionData(imsi: string): Promise<SubscriptionData | undefined>;
}
