// @vitest-environment jsdom
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Toaster } from '../../components/ui/toaster';
import { dismissAllToasts, toast } from '../../lib/toast';
import { OnboardingModal, preloadSetupGuide } from './onboarding-modal';
import { resetOnboardingState } from './onboarding-store';

const advance = (ms: number) => act(() => vi.advanceTimersByTime(ms));
const guide = () => screen.queryByRole('dialog', { name: 'Setup Guide' });
const shown = () =>
  [
    guide() && 'guide',
    screen.queryByTestId('toast')?.textContent,
    screen.queryByTestId('reward-popup')?.textContent,
    screen.queryByTestId('notification-toast')?.textContent,
  ].filter(Boolean);

beforeAll(() => preloadSetupGuide());
beforeEach(() => {
  vi.useFakeTimers();
  localStorage.clear();
  resetOnboardingState();
  dismissAllToasts();
});
afterEach(() => vi.useRealTimers());

describe('a new account first load', () => {
  it('shows one thing at a time: the Setup Guide, then the sign-up toast, then the reward, then the notification', () => {
    render(
      <>
        <Toaster />
        <OnboardingModal />
      </>,
    );
    // The register screen's toast and the login reward arrive while the guide is waiting to open.
    act(() => {
      toast({ title: 'Account created!', description: 'Welcome to Eyevu.' });
      toast({ lane: 'reward', title: '+10 pts', description: 'Welcome!' });
      toast({ lane: 'notification', title: 'Welcome!' });
    });
    expect(shown()).toEqual([]);
    advance(1000);
    expect(shown()).toEqual(['guide']);
    advance(60_000);
    expect(shown()).toEqual(['guide']);

    act(() => fireEvent.click(screen.getByRole('button', { name: /skip|close/i })));
    expect(guide()).toBeNull();
    expect(shown()).toHaveLength(1);
    expect(shown()[0]).toContain('Account created!');
    advance(5000);
    expect(shown()).toHaveLength(1);
    expect(shown()[0]).toContain('+10 pts');
    advance(2500);
    expect(shown()).toEqual(['Welcome!']);
    advance(3000);
    expect(shown()).toEqual([]);

    // Afterwards the lanes work as always: a toast shows at once.
    act(() => void toast({ title: 'Album Created' }));
    expect(shown()).toHaveLength(1);
  });

  it('a returning user (guide already seen) gets toasts at once', () => {
    localStorage.setItem('eyevu-onboarding-seen', 'true');
    render(
      <>
        <Toaster />
        <OnboardingModal />
      </>,
    );
    act(() => void toast({ lane: 'reward', title: '+10 pts', description: 'Welcome back!' }));
    expect(screen.getByTestId('reward-popup')).toHaveTextContent('Welcome back!');
  });
});
