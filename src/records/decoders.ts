import type { Logger } from 'pino';

/**
 * Turns a stored message into its nested structure (for NGAP: a member named for the outcome kind
 * holding `procedure_code`, `criticality` and `value`). Throws (or rejects) when the bytes do not decode.
 * It may be asynchronous, so that a large codec loads on first use instead of at start.
 */
type Decoder = (raw: Uint8Array) => Record<string, unknown> | Promise<Record<string, unknown>>;

/**
 * Decoders by protocol name (`NGAP`), applied when a radio event is read, so a better decoder improves
 * every stored event. The network side registers its codecs here. A protocol without a decoder, or bytes
 * its decoder refuses, decode to `{}`: the API never invents a structure the bytes do not carry.
 */
export function createDecoderRegistry(deps: { logger: Logger }) {
  const decoders = new Map<string, Decoder>();

  return {
    register(protocol: string, decoder: Decoder): void {
      decoders.set(protocol, decoder);
    },

    async decode(protocol: string, raw: Uint8Array): Promise<Record<string, unknown>> {
      const decoder = decoders.get(protocol);
      if (!decoder) return {};
      try {
        return await decoder(raw);
      } catch (error) {
        deps.logger.warn({ err: error, protocol }, `stored ${protocol} message does not decode`);
        return {};
      }
    },
  };
}

export type DecoderRegistry = ReturnType<typeof createDecoderRegistry>;
