/** The dashboard's counts (GET /api/v1/status/summary). */
export interface Summary {
  radios_connected: number;
  subscribers: number;
  subscribers_registered: number;
  sessions_active: number;
}

export interface Step {
  /** What to do, in the operator's words. */
  label: string;
  /** How it is done, or how the service tells it is. */
  hint: string;
  /** The page where it is done. */
  to: string;
  done: boolean;
}

/** A network is empty until it has a subscriber and a radio: then the dashboard leads through the steps. */
export function isEmptyNetwork(summary: Summary): boolean {
  return summary.subscribers === 0 || summary.radios_connected === 0;
}

/**
 * The steps from a new core to a device with a data session, each done as the service sees it. A radio
 * is admitted only when it serves the operator's PLMN and a supported TAC (decisions section 7), so a
 * connected radio is the sign that the operator is set right.
 */
export function gettingStartedSteps(summary: Summary, n2Listeners: readonly string[] | undefined): Step[] {
  const radio = summary.radios_connected > 0;
  const where =
    n2Listeners === undefined || n2Listeners.length === 0
      ? 'N2 is not running: see docs/n2.md for the transport'
      : `point the gNB's AMF address at ${n2Listeners.join(', ')} (SCTP)`;
  return [
    {
      label: "Set the operator's PLMN (MCC, MNC) and tracking areas to your radios'",
      hint: 'a radio serving another PLMN or TAC is refused at NG Setup',
      to: '/operator',
      done: radio,
    },
    {
      label: 'Add a subscriber for each SIM card',
      hint: 'its IMSI, key (K) and OPc, or import them from a file',
      to: '/subscribers',
      done: summary.subscribers > 0,
    },
    { label: 'Connect a radio', hint: where, to: '/radios', done: radio },
    {
      label: 'Register a device',
      hint: 'a failed attempt is in the subscriber logs',
      to: '/logs/subscribers',
      done: summary.subscribers_registered > 0,
    },
    {
      label: 'Open a data session',
      hint: "its data network and slice come from the subscriber's profile and policies",
      to: '/policies',
      done: summary.sessions_active > 0,
    },
  ];
}
