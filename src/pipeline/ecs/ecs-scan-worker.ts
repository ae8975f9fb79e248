/**
 * The scan worker's entry (see EcsScanPool): scans the lines each message brings with
 * scanEcsLines and answers with what it found, the packed spans transferred, not copied.
 */
import { parentPort } from 'node:worker_threads';
import { type EcsScanAnswer, type EcsScanJob, SCAN_WORKER_READY } from './ecs-scan-pool.ts';
import { scanEcsLines } from './scan-ecs-lines.ts';

const port = parentPort;
if (port === null) throw new Error('ecs-scan-worker.ts runs as a worker thread');
port.on('message', (job: EcsScanJob) => {
  let answer: EcsScanAnswer;
  try {
    // A scanner and time scratch per job: jobs of several shipments interleave here.
    const scan = scanEcsLines(job.bytes, job.starts, job.ends, 0, job.starts.length);
    answer = { id: job.id, scan };
    port.postMessage(answer, [scan.packed.buffer as ArrayBuffer]);
  } catch (err) {
    answer = { id: job.id, error: err instanceof Error ? err.message : String(err) };
    port.postMessage(answer);
  }
});
// Only now can it scan: the pool hands over no job before this (see SCAN_WORKER_READY).
port.postMessage(SCAN_WORKER_READY);
