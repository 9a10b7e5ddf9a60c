import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { Toaster } from '../../components/ui/toaster';
import { getQueryFn } from '../../lib/api';
import GalleryPage from './gallery-page';

/** jsdom has no ResizeObserver, which the gallery's grid measures with: one that sees nothing. */
export function stubResizeObserver() {
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      disconnect() {}
    },
  );
}

/** A query client as the app's: its query function (`fetch`), no retries, answers never stale. */
export const galleryQueryClient = () =>
  new QueryClient({
    defaultOptions: {
      queries: { queryFn: getQueryFn({ on401: 'throw' }), retry: false, staleTime: Infinity },
      mutations: { retry: false },
    },
  });

/**
 * The gallery screen at `path` (its query string too) with the toasts, `beside` it what a test
 * needs of the shell. Returns the render and the query client.
 */
export function renderGallery({
  path = '/gallery',
  qc = galleryQueryClient(),
  beside,
}: { path?: string; qc?: QueryClient; beside?: ReactNode } = {}) {
  const location = memoryLocation({ path });
  const view = render(
    <QueryClientProvider client={qc}>
      <Router hook={location.hook} searchHook={location.searchHook}>
        <GalleryPage />
      </Router>
      {beside}
      <Toaster />
    </QueryClientProvider>,
  );
  return { ...view, qc };
}
