/**
 * Inflated bytes one shipment may still keep between its passes (ArchiveLimits.retainBytes),
 * shared by all archives and entries of the shipment. Readers take from it while a first pass
 * runs and give back what they end up not keeping.
 */
export interface RetainBudget {
  left: number;
}

/** A budget of `bytes` (negative or not finite counts as 0). */
export function createRetainBudget(bytes: number): RetainBudget {
  return { left: Number.isFinite(bytes) && bytes > 0 ? Math.floor(bytes) : 0 };
}
