import { lazy, Suspense, useState, type ComponentType, type ReactNode } from 'react';

export interface LazyWhenOpen<P extends { open: boolean }> {
  (props: P): ReactNode;
  /** Starts loading the code (once); resolves when it is there. */
  preload(): Promise<void>;
}

/**
 * A controlled dialog whose code is downloaded and evaluated the first time it opens, not with
 * the screen that holds it: Radix Dialog (focus scope, scroll lock, portal, presence) and the
 * dialog's own content are then no part of a first load that shows them closed. Until the first
 * opening it renders nothing (closed, the dialog renders nothing either); after it, the dialog stays
 * mounted, so closing runs as always (focus returns to the opener).
 */
export function lazyWhenOpen<P extends { open: boolean }>(load: () => Promise<ComponentType<P>>): LazyWhenOpen<P> {
  let loaded: { default: ComponentType<P> } | undefined;
  let loading: Promise<{ default: ComponentType<P> }> | undefined;
  // A failed download throws to the nearest error boundary, as a lazy screen's does.
  const start = () => (loading ??= load().then((component) => (loaded = { default: component })));
  // Code already loaded (preloaded) is handed to React synchronously, so the first opening renders
  // the dialog in that same render instead of suspending for a turn.
  const Lazy = lazy(
    () =>
      (loaded
        ? { then: (resolve: (m: { default: ComponentType<P> }) => void) => resolve(loaded!) }
        : start()) as Promise<{ default: ComponentType<P> }>,
  );

  function WhenOpened(props: P) {
    const [opened, setOpened] = useState(props.open);
    // Adjusting state while rendering: the first `open` mounts the dialog in this same render.
    if (props.open && !opened) setOpened(true);
    if (!opened) return null;
    return (
      <Suspense fallback={null}>
        <Lazy {...(props as P & React.JSX.IntrinsicAttributes)} />
      </Suspense>
    );
  }
  return Object.assign(WhenOpened, { preload: () => start().then(() => undefined) });
}
