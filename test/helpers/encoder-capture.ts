import type { OutboundBatch } from '../../src/pipeline/shipment/outbound-event.ts';
import { BatchEncoder, type BatchSink } from '../../src/siems/syslog-tcp/batch-encoder.ts';
import { ChunkBuilder } from '../../src/siems/syslog-tcp/chunk-builder.ts';
import type { SyslogEncoderSettings } from '../../src/siems/syslog-tcp/syslog-encode.ts';

/**
 * The syslog_tcp BatchEncoder without a socket: every chunk it fills is kept, every refusal's
 * reason recorded once per refused event, so tests can compare the bytes it would send.
 */
export function encoderCapture(settings: SyslogEncoderSettings, chunkBytes: number) {
  const encoder = new BatchEncoder(settings);
  const builder = new ChunkBuilder(chunkBytes);
  const chunks: Buffer[] = [];
  const refusals: string[] = [];
  const sink: BatchSink = {
    refuse(refusal, events) {
      for (let i = 0; i < events; i++) refusals.push(refusal.error);
    },
    async flush() {
      chunks.push(builder.take().data);
      return undefined;
    },
    stop() {
      throw new Error('the test sink never stops a shipment');
    },
  };
  return {
    refusals,
    /** Encodes one batch and keeps what it wrote, as the driver does after each batch. */
    async encode(batch: OutboundBatch): Promise<void> {
      await encoder.encode(batch, builder, sink);
      if (builder.events > 0) chunks.push(builder.take().data);
    },
    /** Everything written so far, as one buffer. */
    bytes(): Buffer {
      return Buffer.concat(chunks);
    },
  };
}
