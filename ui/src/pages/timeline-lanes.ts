/** The sequence diagram's lanes of a subscriber's timeline, left to right. */
export const LANES = ['UE', 'gNB', 'AMF/SMF', 'UPF'] as const;

/** What decides a step's place: its kind and, for a message, the way it went. */
export interface Placed {
  kind: 'nas' | 'ngap' | 'state' | 'session' | 'upf';
  direction: 'inbound' | 'outbound' | null;
}

/**
 * Where each kind of step sits among the lanes: the first lane it touches, how many it spans, and what
 * it goes between. A NAS message runs between the UE and the AMF/SMF (through the gNB), the NGAP message
 * that carried it between the gNB and the AMF; a state change is the AMF's, a session the SMF's rules in
 * the UPF, a flow report the UPF's own.
 */
export function placeOf(step: Placed): { from: number; span: number; path: string } {
  const inbound = step.direction === 'inbound';
  switch (step.kind) {
    case 'nas':
      return { from: 0, span: 3, path: inbound ? 'UE to AMF/SMF' : 'AMF/SMF to UE' };
    case 'ngap':
      return { from: 1, span: 2, path: inbound ? 'gNB to AMF' : 'AMF to gNB' };
    case 'state':
      return { from: 2, span: 1, path: 'AMF' };
    case 'session':
      return { from: 2, span: 2, path: 'SMF to UPF' };
    case 'upf':
      return { from: 3, span: 1, path: 'UPF' };
  }
}
