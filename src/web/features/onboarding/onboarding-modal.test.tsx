// @vitest-environment jsdom
import { act, fireEvent, render, screen } from '@testing-library/react';
import { OnboardingModal } from './onboarding-modal';
import {
  ONBOARDING_COMPLETED_KEY,
  ONBOARDING_SEEN_KEY,
  openOnboarding,
  resetOnboarding,
  resetOnboardingState,
} from './onboarding-store';

// Async: the dialog's code is a lazy import, which resolves between timer steps.
const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
const click = (el: HTMLElement) => act(() => fireEvent.click(el));
const dialog = () => screen.queryByRole('dialog', { name: 'Setup Guide' });

// The dialog's chunk, loaded once, so a lazy render waits on promises only, not on the disk.
beforeAll(() => import('./onboarding-dialog'));
beforeEach(() => {
  vi.useFakeTimers();
  localStorage.clear();
  resetOnboardingState();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('OnboardingModal', () => {
  it('auto-opens 1 s after the first load and marks itself seen at once', async () => {
    render(<OnboardingModal />);
    expect(localStorage.getItem(ONBOARDING_SEEN_KEY)).toBe('true');
    await advance(999);
    expect(dialog()).toBeNull();
    // jsdom has no requestIdleCallback: the idle moment is the next task.
    await advance(2);
    expect(dialog()).toBeInTheDocument();
    expect(screen.getByText('Step 1 of 7')).toBeInTheDocument();
    expect(screen.getByText('14%')).toBeInTheDocument();
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '14');
  });

  it('counts the second from the page load event and opens only once the browser is idle', async () => {
    // A first load still in progress: the app has mounted, the page's images are still loading.
    const readyState = vi.spyOn(document, 'readyState', 'get').mockReturnValue('loading');
    let idle: (() => void) | undefined;
    vi.stubGlobal('requestIdleCallback', (cb: () => void) => {
      idle = cb;
      return 1;
    });
    vi.stubGlobal('cancelIdleCallback', () => {});
    try {
      const { unmount } = render(<OnboardingModal />);
      await advance(5000);
      expect(dialog()).toBeNull();

      readyState.mockReturnValue('complete');
      await act(async () => void window.dispatchEvent(new Event('load')));
      await advance(999);
      expect(idle).toBeUndefined();
      await advance(1);
      // The second has passed; the browser is still busy, so the guide waits.
      await advance(10_000);
      expect(dialog()).toBeNull();
      await act(async () => idle!());
      expect(dialog()).toBeInTheDocument();
      expect(screen.getByText('Step 1 of 7')).toBeInTheDocument();
      unmount();
    } finally {
      readyState.mockRestore();
      vi.unstubAllGlobals();
    }
  });

  it('does not open when already seen or completed', async () => {
    localStorage.setItem(ONBOARDING_SEEN_KEY, 'true');
    const { unmount } = render(<OnboardingModal />);
    await advance(5000);
    expect(dialog()).toBeNull();
    unmount();
    localStorage.clear();
    localStorage.setItem(ONBOARDING_COMPLETED_KEY, 'true');
    render(<OnboardingModal />);
    await advance(5000);
    expect(dialog()).toBeNull();
  });

  it('moves between steps after a 300 ms transition and finishes with Get Started', async () => {
    render(<OnboardingModal />);
    await advance(1001);
    click(screen.getByRole('button', { name: 'Next' }));
    await advance(299);
    expect(screen.getByText('Step 1 of 7')).toBeInTheDocument();
    await advance(1);
    expect(screen.getByText('Step 2 of 7')).toBeInTheDocument();
    expect(screen.getByText('Smart Detection')).toBeInTheDocument();
    expect(screen.getByText('Photo Overlay')).toBeInTheDocument();
    expect(screen.getByText('Earn Points')).toBeInTheDocument();

    click(screen.getByRole('button', { name: 'Previous' }));
    await advance(300);
    expect(screen.getByText('Step 1 of 7')).toBeInTheDocument();

    for (let i = 0; i < 6; i++) {
      click(screen.getByRole('button', { name: 'Next' }));
      await advance(300);
    }
    expect(screen.getByText('Step 7 of 7')).toBeInTheDocument();
    expect(screen.getByText('100%')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Next' })).toBeNull();
    click(screen.getByRole('button', { name: 'Get Started' }));
    expect(dialog()).toBeNull();
    expect(localStorage.getItem(ONBOARDING_COMPLETED_KEY)).toBe('true');
  });

  it('closes with the X (a skip), and Reset reopens at step 1 with both flags cleared', async () => {
    render(<OnboardingModal />);
    await act(async () => openOnboarding(3));
    expect(screen.getByText('Step 4 of 7')).toBeInTheDocument();
    click(screen.getByRole('button', { name: 'Close' }));
    expect(dialog()).toBeNull();
    expect(localStorage.getItem(ONBOARDING_COMPLETED_KEY)).toBe('true');

    await act(async () => resetOnboarding());
    expect(localStorage.getItem(ONBOARDING_COMPLETED_KEY)).toBeNull();
    expect(localStorage.getItem(ONBOARDING_SEEN_KEY)).toBeNull();
    expect(screen.getByText('Step 1 of 7')).toBeInTheDocument();
  });
});
