/** One probe of a connectivity check. */
export interface CheckStep {
  name: string;
  ok: boolean;
  message: string;
  endpoint?: string;
}
