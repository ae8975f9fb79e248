/**
 * Calls of Buffer#indexOf and Buffer#compare made while `run` runs: the line splitters' searches,
 * a measure of their work that does not depend on the machine's speed.
 */
export async function countingBufferCalls(run: () => Promise<void>): Promise<number> {
  const proto = Buffer.prototype;
  const { indexOf, compare } = proto;
  let calls = 0;
  proto.indexOf = function (this: Buffer, ...args: Parameters<Buffer['indexOf']>) {
    calls++;
    return indexOf.apply(this, args);
  };
  proto.compare = function (this: Buffer, ...args: Parameters<Buffer['compare']>) {
    calls++;
    return compare.apply(this, args);
  };
  try {
    await run();
  } finally {
    proto.indexOf = indexOf;
    proto.compare = compare;
  }
  return calls;
}
