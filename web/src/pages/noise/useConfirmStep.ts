import { useEffect, useRef, useState } from 'react';

/**
 * A two-step action (trigger, then confirm or keep) that keeps keyboard focus in place: the confirm
 * button takes focus when the step opens, the trigger gets it back when the step closes, and the
 * confirm button gets it back after a failure (it is disabled, so loses focus, while the action runs).
 */
export function useConfirmStep(error: unknown) {
  const [confirming, setConfirming] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
    else if (wasConfirming.current) triggerRef.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);
  useEffect(() => {
    if (error) confirmRef.current?.focus();
  }, [error]);
  return {
    confirming,
    open: () => setConfirming(true),
    close: () => setConfirming(false),
    confirmRef,
    triggerRef,
  };
}
