import { AlertTriangle } from 'lucide-react';
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Button } from '../components/ui/button';

/**
 * A screen's chunk that cannot be fetched (a deploy replaced it, or the connection dropped mid-load)
 * rejects React.lazy, which React turns into an error thrown in render. The messages differ by browser.
 */
export function isChunkLoadError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'ChunkLoadError' ||
    /dynamically imported module|importing a module script failed|unable to preload css/i.test(error.message)
  );
}

interface Props {
  children: ReactNode;
  /** A change (the route) clears the error, so the bottom navigation leads out of a failed screen. */
  resetKey?: unknown;
  /** Injected by tests; the app reloads the page and goes to '/' with a full load (fresh index.html). */
  onReload?: () => void;
  onGoHome?: () => void;
}

interface State {
  error: unknown;
}

/** Shows a way back instead of a blank screen when a screen fails to load or render. */
export class AppErrorBoundary extends Component<Props, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error ?? new Error('Unknown error') };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('Screen failed', error, info.componentStack);
  }

  componentDidUpdate(prev: Props) {
    if (this.state.error && prev.resetKey !== this.props.resetKey) this.setState({ error: null });
  }

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    const reload = this.props.onReload ?? (() => window.location.reload());
    const goHome = this.props.onGoHome ?? (() => window.location.assign('/'));
    return (
      <main
        role="alert"
        className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center"
        data-testid="error-screen"
      >
        <AlertTriangle className="size-10 text-muted" aria-hidden />
        <h1 className="text-xl font-bold">Something went wrong</h1>
        <p className="max-w-72 text-sm text-muted">
          {isChunkLoadError(error)
            ? 'This screen could not be loaded. Eyevu may have been updated, or the connection dropped. Reloading fetches it again.'
            : 'This screen stopped working. Reload to try again, or go back to the home screen.'}
        </p>
        <div className="flex gap-2">
          <Button onClick={reload}>Reload</Button>
          <Button variant="outline" onClick={goHome}>
            Go home
          </Button>
        </div>
      </main>
    );
  }
}
