import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';

/** What a page passes to the next in navigation state, e.g. after creating or deleting something. */
export interface NoticeState {
  readonly notice?: string;
}

/** A confirmation carried in navigation state (or given directly), focused when it appears. */
export function Notice({ message }: { message?: string | null }) {
  const location = useLocation();
  const text = message ?? (location.state as NoticeState | null)?.notice ?? null;
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (text) ref.current?.focus();
  }, [text]);
  if (!text) return null;
  return (
    <p className="users-notice" role="status" tabIndex={-1} ref={ref}>
      {text}
    </p>
  );
}
