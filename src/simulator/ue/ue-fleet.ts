import type { Timers } from '../../clock.ts';
import type { UeProcedureTimers } from './simulated-ue.ts';
import { SimulatedUe } from './simulated-ue.ts';
import type { UeConfig } from './ue-config.ts';
import type { UeRadio } from './ue-radio.ts';

/** Many simulated UEs from one template, spread over the cells of several gNBs. */
interface UeFleetOptions {
  /** UE `i` gets the template's IMSI + i and IMEISV serial number + i; other fields are shared. */
  template: UeConfig;
  count: number;
  /** UE `i` camps on `radios[i % radios.length]`. */
  radios: readonly UeRadio[];
  timers?: Timers;
  procedureTimers?: Partial<UeProcedureTimers>;
  keepLog?: boolean;
}

/** The `i`-th number after `digits`, same width (IMSIs of consecutive MSINs). */
function offsetDigits(digits: string, i: number): string {
  const value = BigInt(digits) + BigInt(i);
  const text = value.toString().padStart(digits.length, '0');
  if (text.length > digits.length)
    throw new RangeError(`${digits} + ${i} does not fit ${digits.length} digits`);
  return text;
}

export function createUes(options: UeFleetOptions): SimulatedUe[] {
  const { template, radios } = options;
  if (radios.length === 0) throw new RangeError('UEs need at least one radio');
  return Array.from({ length: options.count }, (_, i) => {
    // TS 23.003 6.2.2: TAC (8 digits), serial number (6), software version (2).
    const imeisv =
      template.imeisv.slice(0, 8) + offsetDigits(template.imeisv.slice(8, 14), i) + template.imeisv.slice(14);
    return new SimulatedUe({
      config: { ...template, imsi: offsetDigits(template.imsi, i), imeisv },
      radio: radios[i % radios.length]!,
      ...(options.timers === undefined ? {} : { timers: options.timers }),
      ...(options.procedureTimers === undefined ? {} : { procedureTimers: options.procedureTimers }),
      ...(options.keepLog === undefined ? {} : { keepLog: options.keepLog }),
    });
  });
}

/** Runs `task` over `items` with at most `concurrency` in flight; results in the order of `items`. */
export async function withConcurrency<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
