// @vitest-environment jsdom
import { render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { FirstPaint, keepFirstPaint } from './first-paint';

/**
 * The server's first content (web-pages.ts) is kept before React replaces it and shown again while
 * the session check and the screen load, for its own path only, so the heading painted from HTML
 * stays put and is the only copy once React has rendered.
 */
beforeAll(() => {
  window.history.replaceState(null, '', '/pricing');
  const container = document.createElement('div');
  container.innerHTML =
    '<div class="frame"><div id="first-paint" class="contents"><header>Eyevu</header>' +
    '<main><h1 class="text-2xl font-bold">Choose Your Plan</h1></main></div></div>';
  keepFirstPaint(container);
});

const at = (path: string, ui: ReactNode) => render(<Router hook={memoryLocation({ path }).hook}>{ui}</Router>);

describe('FirstPaint', () => {
  it('shows the kept heading once, with the bar only where no status bar is rendered yet', () => {
    at('/pricing', <FirstPaint withBar fallback={<p>Checking your session</p>} />);
    expect(screen.getAllByRole('heading', { level: 1, name: 'Choose Your Plan' })).toHaveLength(1);
    expect(screen.getByRole('banner')).toHaveTextContent('Eyevu');
    expect(screen.queryByText('Checking your session')).toBeNull();
  });

  it('without the bar inside the app, where the real status bar is already shown', () => {
    at('/pricing', <FirstPaint fallback={<p>Loading</p>} />);
    expect(screen.getByRole('heading', { level: 1, name: 'Choose Your Plan' })).toBeInTheDocument();
    expect(screen.queryByRole('banner')).toBeNull();
  });

  it('another path gets the fallback, never the pricing heading', () => {
    at('/gallery', <FirstPaint fallback={<p>Loading</p>} />);
    expect(screen.getByText('Loading')).toBeInTheDocument();
    expect(screen.queryByRole('heading')).toBeNull();
  });
});
