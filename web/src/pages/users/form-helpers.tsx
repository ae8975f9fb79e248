import { type RefObject, useEffect } from 'react';
import { ApiError } from '../../api/client.ts';

/** Whether the API named this field in its 400 (`details.fields`). */
export function fieldInvalid(error: unknown, field: string): boolean {
  return error instanceof ApiError && Boolean(error.fields[field]);
}

/**
 * After a failed action, moves focus to the first field the API named, or else to the element marked
 * `data-error-focus` (a wrapper of the error notice), so keyboard and screen-reader users land on it.
 */
export function useFocusOnError(error: unknown, container: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    if (!error) return;
    const root = container.current;
    const target =
      root?.querySelector<HTMLElement>('[aria-invalid="true"]') ??
      root?.querySelector<HTMLElement>('[data-error-focus]') ??
      (root?.matches('[data-error-focus]') ? root : null);
    target?.focus();
  }, [error, container]);
}
