import {
  Camera,
  CheckCircle2,
  Eye,
  Images,
  PartyPopper,
  Power,
  Sparkles,
  Trophy,
  X,
  type LucideIcon,
} from 'lucide-react';
import { useDeferredValue, useEffect, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { Button } from '../../components/ui/button';
import { Dialog, DialogClose, DialogTitle } from '../../components/ui/dialog';
import { ProgressBar } from '../../components/ui/progress-bar';
import { focusAfterPaint } from '../../lib/focus-after-paint';
import { completeOnboarding, setOnboardingStep, STEP_TRANSITION_MS, useOnboarding } from './onboarding-store';

interface Step {
  id: string;
  title: string;
  icon: LucideIcon;
  body: ReactNode;
  action?: 'gallery';
}

const FEATURES = [
  { icon: Eye, title: 'Smart Detection', text: 'Eyevu notices when an ad starts playing in another app.' },
  { icon: Images, title: 'Photo Overlay', text: 'Your own photos appear over the ad while it runs.' },
  { icon: Trophy, title: 'Earn Points', text: 'Every ad break earns points, streaks and achievements.' },
];

/**
 * Seven steps (welcome, how-it-works, upload-photos, activation, test-detection, rewards, complete):
 * 'rewards' explains points before the final step.
 */
export const ONBOARDING_STEPS: readonly Step[] = [
  {
    id: 'welcome',
    title: 'Welcome to Eyevu',
    icon: Sparkles,
    body: <p>Turn ad breaks into moments with your own photos. This short guide shows you around.</p>,
  },
  {
    id: 'how-it-works',
    title: 'How it works',
    icon: Eye,
    body: (
      <ul className="flex flex-col gap-3 text-left">
        {FEATURES.map((f) => (
          <li key={f.title} className="flex gap-3 rounded-xl bg-surface-2 p-3">
            <f.icon className="mt-0.5 size-5 shrink-0 text-primary" aria-hidden />
            <div>
              <p className="font-semibold">{f.title}</p>
              <p className="text-sm text-muted">{f.text}</p>
            </div>
          </li>
        ))}
      </ul>
    ),
  },
  {
    id: 'upload-photos',
    title: 'Add your photos',
    icon: Camera,
    body: <p>Your gallery is what you will see during ads. Add a few favourite photos to get started.</p>,
    action: 'gallery',
  },
  {
    id: 'activation',
    title: 'Activate Eyevu',
    icon: Power,
    body: <p>Use the Activate button on the dashboard&apos;s status card to start monitoring for ads.</p>,
  },
  {
    id: 'test-detection',
    title: 'Test ad detection',
    icon: Eye,
    body: <p>Try a simulated YouTube, Instagram or TikTok ad from Test Features on the dashboard.</p>,
  },
  {
    id: 'rewards',
    title: 'Earn rewards',
    icon: Trophy,
    body: <p>Skip ads, upload photos and log in daily to earn points, build streaks and unlock achievements.</p>,
  },
  {
    id: 'complete',
    title: "You're all set!",
    icon: PartyPopper,
    body: <p>Enjoy your photos instead of ads. You can reopen this guide from Settings at any time.</p>,
  },
];

/**
 * The setup guide's dialog, loaded the first time it opens (`OnboardingModal` in onboarding-modal.tsx
 * is what stays mounted and schedules the first run's opening).
 */
export function OnboardingDialog({ open: wanted }: { open: boolean }) {
  const { step } = useOnboarding();
  // The store updates through useSyncExternalStore, which React renders in one blocking task; the
  // deferred copy mounts the dialog in a render that yields, and its focus waits for the frame
  // (focusAfterPaint), so opening by itself while the first load still works costs no long task.
  // Mounted by its first opening: it commits closed first, then opens in the deferred render.
  const open = useDeferredValue(wanted, false);
  const [, navigate] = useLocation();
  const [leaving, setLeaving] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  const total = ONBOARDING_STEPS.length;
  const current = ONBOARDING_STEPS[Math.min(step, total - 1)]!;
  const percent = Math.round(((step + 1) / total) * 100);
  const last = step >= total - 1;

  const previous = useRef<HTMLButtonElement>(null);
  const nextButton = useRef<HTMLButtonElement>(null);
  const goTo = (next: number) => {
    if (leaving) return;
    setLeaving(true);
    timer.current = setTimeout(() => {
      // Previous is disabled on the first step, and Chrome moves focus off a disabled button to the
      // page: a press that lands there hands focus to Next, the way on.
      if (next === 0 && document.activeElement === previous.current) nextButton.current?.focus();
      setOnboardingStep(next);
      setLeaving(false);
    }, STEP_TRANSITION_MS);
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(o) => !o && completeOnboarding()}
      layer="guide"
      backdropTestId="onboarding-backdrop"
      aria-describedby={undefined}
      onOpenAutoFocus={focusAfterPaint}
    >
      <div className="flex items-center justify-between gap-2">
        <DialogTitle className="text-lg font-bold">Setup Guide</DialogTitle>
        <div className="flex items-center gap-2">
          <span className="rounded-full bg-primary-soft px-2 py-0.5 text-xs font-semibold text-primary">
            {percent}%
          </span>
          <DialogClose aria-label="Close" className="grid size-11 place-items-center rounded-lg hover:bg-surface-2">
            <X className="size-5" aria-hidden />
          </DialogClose>
        </div>
      </div>
      <div>
        <p className="mb-1 text-sm text-muted">
          Step {step + 1} of {total}
        </p>
        {/* Next and Previous keep focus while the step changes around them: this says where it went. */}
        <p role="status" className="sr-only">
          Step {step + 1} of {total}: {current.title}
        </p>
        <ProgressBar value={percent} label="Setup progress" />
      </div>
      <div
        className={`flex flex-col items-center gap-3 text-center transition-opacity duration-300 ${leaving ? 'opacity-0' : 'opacity-100'}`}
        data-step={current.id}
      >
        <span className="grid size-14 place-items-center rounded-full bg-primary-soft">
          <current.icon className="size-7 text-primary" aria-hidden />
        </span>
        <h3 className="text-xl font-bold">{current.title}</h3>
        <div className="text-sm text-muted">{current.body}</div>
        {current.action === 'gallery' && (
          <Button
            variant="secondary"
            onClick={() => {
              completeOnboarding();
              navigate('/gallery');
            }}
          >
            <Images className="size-4" aria-hidden />
            Go to Gallery
          </Button>
        )}
      </div>
      <div className="flex gap-2">
        {/* During the step's transition the buttons refuse presses but keep focus (not disabled:
            Chrome would move it to the page), and the step changes around it. */}
        <Button
          ref={previous}
          variant="outline"
          className="flex-1"
          disabled={step === 0}
          pending={leaving}
          onClick={() => goTo(step - 1)}
        >
          Previous
        </Button>
        {last ? (
          <Button className="flex-1" onClick={completeOnboarding}>
            <CheckCircle2 className="size-4" aria-hidden />
            Get Started
          </Button>
        ) : (
          <Button ref={nextButton} className="flex-1" pending={leaving} onClick={() => goTo(step + 1)}>
            Next
          </Button>
        )}
      </div>
    </Dialog>
  );
}
