import * as Switch from '@radix-ui/react-switch';
import { CheckCircle2, LogOut } from 'lucide-react';
import { useId, useRef, useState, type ReactNode, type RefObject } from 'react';
import { Link } from 'wouter';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { PageHeader } from '../../components/ui/page-header';
import { useLogout } from '../auth';
import { useSubscription } from '../subscription';
import { LoadFailed } from '../../components/ui/refresh-failed';
import { useServerNow } from '../../lib/server-clock';
import { openOnboarding, resetOnboarding, useOnboarding } from '../onboarding';
import { ActivityList, useActivities } from '../rewards';
import { ThemeCustomizer } from './theme-customizer';

function Section({
  title,
  titleRef,
  children,
}: {
  title: string;
  titleRef?: RefObject<HTMLHeadingElement | null>;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <Card aria-labelledby={id}>
      <h2 ref={titleRef} tabIndex={titleRef ? -1 : undefined} id={id} className="mb-3 text-lg font-bold">
        {title}
      </h2>
      <div className="flex flex-col gap-3">{children}</div>
    </Card>
  );
}

function Toggle({
  label,
  checked,
  onChange,
  disabled,
}: {
  label: string;
  checked: boolean;
  onChange?: (v: boolean) => void;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="flex min-h-11 items-center justify-between gap-3">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <Switch.Root
        id={id}
        checked={checked}
        onCheckedChange={onChange}
        disabled={disabled}
        className="relative h-6 w-11 shrink-0 rounded-full bg-border transition data-[state=checked]:bg-primary disabled:opacity-60"
      >
        <Switch.Thumb className="block size-5 translate-x-0.5 rounded-full bg-white shadow transition data-[state=checked]:translate-x-[22px]" />
      </Switch.Root>
    </div>
  );
}

const linkButton =
  'inline-flex min-h-11 items-center justify-center gap-2 rounded-xl px-4 text-sm font-semibold transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary';

/** Ad detection, gallery, notifications and theme preferences, the tutorial and the activity history. */
export default function SettingsPage() {
  const logout = useLogout();
  const subscriptionQuery = useSubscription();
  const subscribed = subscriptionQuery.isActive;
  const { completed } = useOnboarding();
  const activitiesQuery = useActivities();
  const now = useServerNow();
  const [autoSync, setAutoSync] = useState(false);
  const [quality, setQuality] = useState('high');
  const qualityId = useId();
  const viewTutorial = useRef<HTMLButtonElement>(null);
  // Where focus goes once a Try again is answered: what shows the answer.
  const activityTitle = useRef<HTMLHeadingElement>(null);
  const planActions = useRef<HTMLDivElement>(null);

  return (
    <main className="flex flex-col gap-4 p-4 pb-6">
      <PageHeader title="Settings" />

      <Section title="Ad Detection">
        <Toggle label="Auto-detect ads" checked={subscribed} disabled />
        <ul className="flex flex-col gap-2 text-sm">
          {['YouTube', 'Instagram', 'TikTok'].map((app) => (
            <li key={app} className="flex items-center justify-between">
              {app}
              <CheckCircle2 className="size-5 text-success" aria-label="Enabled" />
            </li>
          ))}
        </ul>
      </Section>

      <Section title="Photo Gallery">
        <Button variant="outline">Grant Access</Button>
        <Toggle label="Auto-sync" checked={autoSync} onChange={setAutoSync} />
        <div className="flex min-h-11 items-center justify-between gap-3">
          <label htmlFor={qualityId} className="text-sm font-medium">
            Photo quality
          </label>
          <select
            id={qualityId}
            value={quality}
            onChange={(e) => setQuality(e.target.value)}
            className="min-h-11 rounded-xl border border-border bg-surface px-3 text-sm text-fg"
          >
            <option value="high">High</option>
            <option value="medium">Medium</option>
            <option value="low">Low</option>
          </select>
        </div>
      </Section>

      <Section title="Notifications">
        <ul className="flex flex-col gap-2 text-sm">
          {['Ad detection alerts', 'Weekly summaries', 'Subscription reminders'].map((n) => (
            <li key={n} className="flex items-center justify-between">
              {n}
              <CheckCircle2 className="size-5 text-success" aria-label="On" />
            </li>
          ))}
        </ul>
      </Section>

      <Section title="Theme Customizer">
        <ThemeCustomizer />
      </Section>

      <Section title="Activity History" titleRef={activityTitle}>
        {/* 'No activities yet' only from an answer that says so: while loading, or when the list
            could not be read (a limit, the network), it told a user with a history that it was gone.
            A list already shown stays when a later refresh of it fails. */}
        {activitiesQuery.data ? (
          activitiesQuery.data.length === 0 ? (
            <p className="text-sm text-muted">No activities yet</p>
          ) : (
            <ActivityList activities={activitiesQuery.data} now={now} />
          )
        ) : activitiesQuery.isError ? (
          <LoadFailed query={activitiesQuery} fallback="Could not load your activities." target={activityTitle} />
        ) : (
          <p role="status" className="text-sm text-muted">
            Loading activities...
          </p>
        )}
      </Section>

      <Section title="Help & Support">
        <Button ref={viewTutorial} variant="outline" onClick={() => openOnboarding(0)}>
          View Tutorial
        </Button>
        {completed && (
          <Button
            variant="outline"
            onClick={() => {
              // This button hides as the guide opens (it shows only once completed), so the guide
              // would return focus to nothing and leave it on the page: it returns to View Tutorial.
              viewTutorial.current?.focus();
              resetOnboarding();
            }}
          >
            Reset Tutorial
          </Button>
        )}
      </Section>

      <Section title="About">
        <dl className="flex justify-between text-sm">
          <dt>Version</dt>
          <dd className="font-semibold">1.0.0</dd>
        </dl>
        <ul className="flex flex-col gap-2 text-sm text-muted">
          <li>Privacy Policy</li>
          <li>Terms of Service</li>
          <li>Support</li>
        </ul>
      </Section>

      {/* The plan's link only from an answer: while it loads, or when it could not be read (a
          limit, a restart), a paying subscriber was offered 'Upgrade Plan', as if on the Free plan.
          The slot keeps the link's height throughout: empty while loading, it added a gap, and
          Sign Out moved down as the answer came. */}
      <div ref={planActions} tabIndex={-1} className="flex min-h-11 flex-col justify-center">
        {subscriptionQuery.data ? (
          subscribed ? (
            <Link href="/billing" className={`${linkButton} bg-primary text-primary-fg`}>
              Manage Subscription
            </Link>
          ) : (
            <Link href="/pricing" className={`${linkButton} bg-primary text-primary-fg`}>
              Upgrade Plan
            </Link>
          )
        ) : subscriptionQuery.isError ? (
          <LoadFailed query={subscriptionQuery} fallback="Could not load your plan." target={planActions} inline />
        ) : (
          <div aria-hidden className="min-h-11 animate-pulse rounded-xl bg-surface-2" />
        )}
      </div>
      <Button variant="outline" onClick={() => logout.mutate()} pending={logout.isPending}>
        <LogOut className="size-4" aria-hidden />
        Sign Out
      </Button>
    </main>
  );
}
