import type {
  FlowReportInput,
  RadioEventInput,
  RadioLogInput,
  SubscriberLogInput,
} from '../../src/records/record-inputs.ts';

/** Record inputs with plausible defaults; tests override what they look at. */

export const IMSI_1 = '001010000000001';
export const IMSI_2 = '001010000000002';
export const RADIO_1 = '001:01:000001';

export function radioEvent(overrides: Partial<RadioEventInput> = {}): RadioEventInput {
  return {
    protocol: 'NGAP',
    messageType: 'NGSetupRequest',
    direction: 'inbound',
    raw: Buffer.from('00150035', 'hex'),
    details: { ran_id: RADIO_1 },
    ...overrides,
  };
}

export function subscriberLog(overrides: Partial<SubscriberLogInput> = {}): SubscriberLogInput {
  return {
    imsi: IMSI_1,
    event: 'Registration request',
    direction: 'inbound',
    raw: Buffer.from('7e0041', 'hex'),
    details: { ran_id: RADIO_1 },
    ...overrides,
  };
}

export function radioLog(overrides: Partial<RadioLogInput> = {}): RadioLogInput {
  return {
    ranId: RADIO_1,
    event: 'NG Setup',
    direction: 'inbound',
    raw: Buffer.from('00150035', 'hex'),
    ...overrides,
  };
}

export function flowReport(overrides: Partial<FlowReportInput> = {}): FlowReportInput {
  const endTime = overrides.endTime ?? Date.parse('2026-11-22T09:00:00.000Z');
  return {
    subscriberId: IMSI_1,
    sourceIp: '10.45.0.2',
    destinationIp: '142.250.1.1',
    sourcePort: 40000,
    destinationPort: 443,
    protocol: 6,
    packets: 10,
    bytes: 1500,
    startTime: endTime - 1000,
    endTime,
    direction: 'uplink',
    action: 'allow',
    ...overrides,
  };
}

export const at = (iso: string): number => Date.parse(iso);
