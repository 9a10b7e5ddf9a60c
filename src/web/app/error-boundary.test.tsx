// @vitest-environment jsdom
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { lazy, Suspense } from 'react';
import { AppErrorBoundary, isChunkLoadError } from './error-boundary';

// What Chromium's import() rejects with when a screen's chunk is gone after a deploy or the network drops.
const chunkError = () => new TypeError('Failed to fetch dynamically imported module: /assets/gallery-page-1a2b3c.js');

describe('AppErrorBoundary', () => {
  beforeEach(() => {
    // React and the boundary log the caught error; the test asserts what the person sees instead.
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });
  afterEach(() => vi.restoreAllMocks());

  it('shows Something went wrong with Reload and Go home when a lazily loaded screen fails to load', async () => {
    const Broken = lazy(() => Promise.reject(chunkError()));
    const onReload = vi.fn();
    const onGoHome = vi.fn();
    render(
      <AppErrorBoundary onReload={onReload} onGoHome={onGoHome}>
        <Suspense fallback={<p>Loading</p>}>
          <Broken />
        </Suspense>
      </AppErrorBoundary>,
    );
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Something went wrong');
    expect(alert).toHaveTextContent('This screen could not be loaded');
    await userEvent.click(screen.getByRole('button', { name: 'Reload' }));
    expect(onReload).toHaveBeenCalledOnce();
    await userEvent.click(screen.getByRole('button', { name: 'Go home' }));
    expect(onGoHome).toHaveBeenCalledOnce();
  });

  it('shows the screen again once the route changes', async () => {
    const Broken = lazy(() => Promise.reject(chunkError()));
    const { rerender } = render(
      <AppErrorBoundary resetKey="/gallery">
        <Suspense fallback={<p>Loading</p>}>
          <Broken />
        </Suspense>
      </AppErrorBoundary>,
    );
    await screen.findByRole('alert');
    rerender(
      <AppErrorBoundary resetKey="/">
        <p>Dashboard</p>
      </AppErrorBoundary>,
    );
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByText('Dashboard')).toBeInTheDocument();
  });

  it('also catches a screen that throws while rendering, with the generic message', () => {
    function Throws(): never {
      throw new Error('boom');
    }
    render(
      <AppErrorBoundary>
        <Throws />
      </AppErrorBoundary>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('This screen stopped working');
    expect(screen.getByRole('button', { name: 'Go home' })).toBeInTheDocument();
  });
});

describe('isChunkLoadError', () => {
  it("recognises each browser's failed dynamic import, and nothing else", () => {
    expect(isChunkLoadError(chunkError())).toBe(true);
    expect(isChunkLoadError(new TypeError('Importing a module script failed.'))).toBe(true); // Safari
    expect(isChunkLoadError(new TypeError('error loading dynamically imported module: x.js'))).toBe(true); // Firefox
    expect(isChunkLoadError(new Error('boom'))).toBe(false);
    expect(isChunkLoadError('Failed to fetch dynamically imported module')).toBe(false);
  });
});
