import { lazy, Suspense, useState, type ComponentType, type ReactNode } from 'react';

/** A lazily loaded component that can be loaded ahead of its first render. */
export interface Preloadable<P> {
  (props: P): ReactNode;
  /** Starts loading the code (once); resolves when it is there. */
  preload(): Promise<void>;
}

/**
 * `React.lazy` that renders without suspending once its code is there (preloaded): React would
 * otherwise suspend for a turn on the first render even for a loaded module, and a revealed
 * Suspense boundary waits on a timer. A failed download throws to the nearest error boundary.
 */
export function lazyPreloadable<P extends object>(load: () => Promise<ComponentType<P>>): Preloadable<P> {
  let loaded: { default: ComponentType<P> } | undefined;
  let loading: Promise<{ default: ComponentType<P> }> | undefined;
  const start = () => (loading ??= load().then((component) => (loaded = { default: component })));
  // Loaded code is handed to React synchronously, so it renders in that same render.
  const Lazy = lazy(
    () =>
      (loaded
        ? { then: (resolve: (m: { default: ComponentType<P> }) => void) => resolve(loaded!) }
        : start()) as Promise<{ default: ComponentType<P> }>,
  );
  function Component(props: P) {
    return (
      <Suspense fallback={null}>
        <Lazy {...(props as P & React.JSX.IntrinsicAttributes)} />
      </Suspense>
    );
  }
  return Object.assign(Component, { preload: () => start().then(() => undefined) });
}

/**
 * A controlled dialog whose code is downloaded and evaluated the first time it opens, not with
 * the screen that holds it: Radix Dialog (focus scope, scroll lock, portal, presence) and the
 * dialog's own content are then no part of a first load that shows them closed. Until the first
 * opening it renders nothing (closed, the dialog renders nothing either); after it, the dialog stays
 * mounted, so closing runs as always (focus returns to the opener).
 */
export function lazyWhenOpen<P extends { open: boolean }>(load: () => Promise<ComponentType<P>>): Preloadable<P> {
  const Dialog = lazyPreloadable(load);
  function WhenOpened(props: P) {
    const [opened, setOpened] = useState(props.open);
    // Adjusting state while rendering: the first `open` mounts the dialog in this same render.
    if (props.open && !opened) setOpened(true);
    return opened ? <Dialog {...props} /> : null;
  }
  return Object.assign(WhenOpened, { preload: Dialog.preload });
}
