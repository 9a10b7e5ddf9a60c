// @vitest-environment jsdom
import { act, fireEvent, render, screen } from '@testing-library/react';
import { StrictMode } from 'react';
import { OnboardingModal, preloadSetupGuide } from './onboarding-modal';
import {
  ONBOARDING_COMPLETED_KEY,
  ONBOARDING_SEEN_KEY,
  openOnboarding,
  resetOnboarding,
  resetOnboardingState,
} from './onboarding-store';

const advance = (ms: number) => act(() => vi.advanceTimersByTime(ms));
const click = (el: HTMLElement) => act(() => fireEvent.click(el));
const dialog = () => screen.queryByRole('dialog', { name: 'Setup Guide' });

// The dialog's own chunk, loaded as the first run does before its second is up.
beforeAll(() => preloadSetupGuide());
beforeEach(() => {
  vi.useFakeTimers();
  localStorage.clear();
  resetOnboardingState();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('OnboardingModal', () => {
  it('auto-opens 1 s after the first load and marks itself seen at once', () => {
    render(<OnboardingModal />);
    expect(localStorage.getItem(ONBOARDING_SEEN_KEY)).toBe('true');
    advance(999);
    expect(dialog()).toBeNull();
    advance(1);
    expect(dialog()).toBeInTheDocument();
    expect(screen.getByText('Step 1 of 7')).toBeInTheDocument();
    expect(screen.getByText('14%')).toBeInTheDocument();
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '14');
  });

  it("opens on time when mounted twice in a row, as React's StrictMode does in development", () => {
    render(
      <StrictMode>
        <OnboardingModal />
      </StrictMode>,
    );
    advance(999);
    expect(dialog()).toBeNull();
    advance(1);
    expect(dialog()).toBeInTheDocument();
  });

  it('does not open when already seen or completed', () => {
    localStorage.setItem(ONBOARDING_SEEN_KEY, 'true');
    const { unmount } = render(<OnboardingModal />);
    advance(5000);
    expect(dialog()).toBeNull();
    unmount();
    localStorage.clear();
    localStorage.setItem(ONBOARDING_COMPLETED_KEY, 'true');
    render(<OnboardingModal />);
    advance(5000);
    expect(dialog()).toBeNull();
  });

  it('moves between steps after a 300 ms transition and finishes with Get Started', () => {
    render(<OnboardingModal />);
    advance(1000);
    click(screen.getByRole('button', { name: 'Next' }));
    advance(299);
    expect(screen.getByText('Step 1 of 7')).toBeInTheDocument();
    advance(1);
    expect(screen.getByText('Step 2 of 7')).toBeInTheDocument();
    expect(screen.getByText('Smart Detection')).toBeInTheDocument();
    expect(screen.getByText('Photo Overlay')).toBeInTheDocument();
    expect(screen.getByText('Earn Points')).toBeInTheDocument();

    click(screen.getByRole('button', { name: 'Previous' }));
    advance(300);
    expect(screen.getByText('Step 1 of 7')).toBeInTheDocument();

    for (let i = 0; i < 6; i++) {
      click(screen.getByRole('button', { name: 'Next' }));
      advance(300);
    }
    expect(screen.getByText('Step 7 of 7')).toBeInTheDocument();
    expect(screen.getByText('100%')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Next' })).toBeNull();
    click(screen.getByRole('button', { name: 'Get Started' }));
    expect(dialog()).toBeNull();
    expect(localStorage.getItem(ONBOARDING_COMPLETED_KEY)).toBe('true');
  });

  it('closes with the X (a skip), and Reset reopens at step 1 with both flags cleared', () => {
    render(<OnboardingModal />);
    act(() => openOnboarding(3));
    expect(screen.getByText('Step 4 of 7')).toBeInTheDocument();
    click(screen.getByRole('button', { name: 'Close' }));
    expect(dialog()).toBeNull();
    expect(localStorage.getItem(ONBOARDING_COMPLETED_KEY)).toBe('true');

    act(() => resetOnboarding());
    expect(localStorage.getItem(ONBOARDING_COMPLETED_KEY)).toBeNull();
    expect(localStorage.getItem(ONBOARDING_SEEN_KEY)).toBeNull();
    expect(screen.getByText('Step 1 of 7')).toBeInTheDocument();
  });

  it('announces each new step, since Next keeps focus and the step changes around it', () => {
    render(<OnboardingModal />);
    advance(1000);
    click(screen.getByRole('button', { name: 'Next' }));
    advance(300);
    expect(screen.getByRole('status')).toHaveTextContent('Step 2 of 7: How it works');
    click(screen.getByRole('button', { name: 'Next' }));
    advance(300);
    expect(screen.getByRole('status')).toHaveTextContent('Step 3 of 7: Add your photos');
  });

  it('keeps focus on Next and Previous while the step changes (refused, not disabled), and on Next at step 1', () => {
    render(<OnboardingModal />);
    advance(1000);
    const next = screen.getByRole('button', { name: 'Next' });
    act(() => next.focus());
    click(next);
    // Not disabled during the 300 ms transition: Chrome moves focus off a disabled button to the page.
    expect(next).toBeEnabled();
    expect(next).toHaveAttribute('aria-disabled', 'true');
    click(next);
    advance(300);
    expect(screen.getByText('Step 2 of 7')).toBeInTheDocument();
    expect(next).toHaveFocus();
    expect(next).not.toHaveAttribute('aria-disabled');

    const previous = screen.getByRole('button', { name: 'Previous' });
    act(() => previous.focus());
    click(previous);
    expect(previous).toBeEnabled();
    expect(previous).toHaveAttribute('aria-disabled', 'true');
    advance(300);
    expect(screen.getByText('Step 1 of 7')).toBeInTheDocument();
    // Previous is unavailable on the first step: focus moved on to Next rather than to the page.
    expect(previous).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Next' })).toHaveFocus();
  });
});
