import type { Activity } from '@contract/activities';
import type { Photo } from '@contract/photos';
import { smallThumbnailUrl } from '@contract/photos-values';
import type { Stats } from '@contract/rewards';
import type { Subscription } from '@contract/subscriptions';
import { formatDay, formatTimeSaved } from '@domain/format';
import {
  avgPerDay,
  efficiencyScore,
  isAdSkipperPro,
  memberDays,
  RECENT_ACTIVITIES_LIMIT,
  RECENT_PHOTOS_LIMIT,
  weeklyProgress,
} from '@domain/insights';
import { Award, Clock, Crown, FolderOpen, Images, SkipForward, TrendingUp } from 'lucide-react';
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useRef } from 'react';
import { Link } from 'wouter';
import { forgetFirstPaint, pictureSrc, usePaintedContent } from '../../app/first-paint';
import { Card } from '../../components/ui/card';
import { LoadFailed, useReadRetry } from '../../components/ui/refresh-failed';
import { categoryLabel, photoCategoryOf } from '../../lib/photo-category';
import { useAuth } from '../auth';
import { useSubscription } from '../subscription';
import { ActivityList, useActivities, useAppStatus, useStats } from '../rewards';
import { useAdBreak } from '../ad-break';
import { PointsChart } from './points-chart';
import { useDashboardPhotos } from './recent-photos-query';
import { StatusCard } from './status-card';
import { TestFeatures, type StartAd } from './test-features';
import { useServerNow } from '../../lib/server-clock';

const linkButton =
  'inline-flex min-h-11 items-center justify-center gap-2 rounded-xl px-4 text-sm font-semibold transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary';

function capitalize(s: string) {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

export interface DashboardPageProps {
  /** Starts a simulated ad for a subscriber instead of the ad break (tests pass their own). */
  onStartAd?: StartAd;
}

/** The home screen. Every number comes from the server (stats from the points ledger). */
export default function DashboardPage() {
  return <Dashboard />;
}

/**
 * The dashboard body. `onStartAd` runs for subscribers; without it (until the ad overlay lands) and
 * for free users, a placeholder / upgrade dialog opens.
 */
export function Dashboard({ onStartAd }: DashboardPageProps) {
  const { user } = useAuth();
  const now = useServerNow();
  const statsQuery = useStats();
  const { data: stats, isPending: statsPending, error: statsError } = statsQuery;
  const statsRetry = useReadRetry(statsQuery);
  const activitiesQuery = useActivities();
  const { data: activitiesAnswer, isLoading: activitiesLoading, error: activitiesQueryError } = activitiesQuery;
  const activitiesRetry = useReadRetry(activitiesQuery);
  const activities = activitiesAnswer ?? NO_ACTIVITIES;
  const activitiesError = activitiesAnswer ? null : activitiesQueryError;
  const { photos, total: photoTotal, analyzed, organized, isPending: photosPending } = useDashboardPhotos();
  const subscriptionQuery = useSubscription();
  const {
    data: subscriptionAnswer,
    subscription,
    isActive: subscribed,
    isPending: subscriptionPending,
    error: subscriptionQueryError,
  } = subscriptionQuery;
  const planRetry = useReadRetry(subscriptionQuery);
  // Only a first answer that never came: a refetch that fails keeps the plan it had.
  const subscriptionError = subscriptionAnswer ? null : subscriptionQueryError;
  const { isPending: statusPending } = useAppStatus();
  // Ad break: the upgrade modal without a subscription, else activate and show the overlay.
  const { start: startAdBreak, element: adBreakElement } = useAdBreak();
  const startAd = useCallback<StartAd>(
    (app, durationSeconds) => {
      if (onStartAd && subscribed) return onStartAd(app, durationSeconds);
      startAdBreak(app);
    },
    [onStartAd, subscribed, startAdBreak],
  );
  const waiting = statsPending || photosPending || subscriptionPending || statusPending;

  // Answers arrive through useSyncExternalStore, which React renders in one blocking task each: the
  // whole screen, again and again while the first load settles (the long tasks of a phone's first
  // seconds). The screen renders from a deferred copy instead, in renders that yield to the browser,
  // and the memoised body skips the blocking render entirely.
  const view = useDeferredValue(
    useMemo(
      () => ({
        user,
        now,
        stats,
        statsError,
        statsRetry,
        activities,
        activitiesLoading,
        activitiesError,
        activitiesRetry,
        photos,
        photoTotal,
        analyzed,
        organized,
        subscription,
        subscribed,
        subscriptionError,
        planRetry,
        waiting,
      }),
      [
        user,
        now,
        stats,
        statsError,
        statsRetry,
        activities,
        activitiesLoading,
        activitiesError,
        activitiesRetry,
        photos,
        photoTotal,
        analyzed,
        organized,
        subscription,
        subscribed,
        subscriptionError,
        planRetry,
        waiting,
      ],
    ),
  );

  // The server painted this screen's first content (web-pages.ts) from the same answers: kept on
  // screen until they have all arrived, so the screen changes once, to the same layout, instead of
  // filling in card by card (each a shift, and a later largest paint). An error ends the wait too.
  const painted = usePaintedContent();
  useEffect(() => {
    if (!view.waiting) forgetFirstPaint();
  }, [view.waiting]);
  if (painted !== null && view.waiting) {
    return <div className="contents" dangerouslySetInnerHTML={{ __html: painted }} />;
  }
  return (
    <>
      <DashboardBody view={view} startAd={startAd} />
      {adBreakElement}
    </>
  );
}

const NO_ACTIVITIES: Activity[] = [];
/** The 'Ad Skipper Pro!' banner's look (web-pages.ts paints the same classes). */
const PRO_BANNER = 'rounded-2xl border border-primary bg-primary-soft p-4 shadow-sm';
/** A figure the screen has no answer for (yet). */
const UNKNOWN = '–';

interface DashboardView {
  user: ReturnType<typeof useAuth>['user'];
  now: Date;
  stats: Stats | undefined;
  statsError: Error | null;
  statsRetry: Retry;
  activities: Activity[];
  activitiesLoading: boolean;
  activitiesError: Error | null;
  activitiesRetry: Retry;
  photos: Photo[];
  photoTotal: number;
  analyzed: number;
  organized: number;
  subscription: Subscription;
  subscribed: boolean;
  subscriptionError: Error | null;
  planRetry: Retry;
}
type Retry = ReturnType<typeof useReadRetry>;

const DashboardBody = memo(function DashboardBody({ view, startAd }: { view: DashboardView; startAd: StartAd }) {
  const {
    user,
    now,
    stats,
    statsError,
    statsRetry,
    activities,
    activitiesLoading,
    activitiesError,
    activitiesRetry,
    photos,
    photoTotal,
    analyzed,
    organized,
    subscription,
    subscribed,
    subscriptionError,
    planRetry,
  } = view;
  // Where focus goes once a Try again is answered: the card that shows the answer.
  const statsCard = useRef<HTMLElement>(null);
  const planCard = useRef<HTMLElement>(null);
  const activityTitle = useRef<HTMLHeadingElement>(null);
  const days = user ? memberDays(user.createdAt, now) : 0;
  const totalPoints = stats?.totalPoints ?? 0;
  const adsSkipped = stats?.adsSkipped ?? 0;
  const avg = avgPerDay(totalPoints, days);
  const weekly = stats ? weeklyProgress(avg, days) : null;
  // Figures not known yet (or refused: a limit, a server restarting) are not zeros: '0 pts' told a
  // user whose stats could not be read that their points were gone.
  const known = (value: string) => (stats ? value : UNKNOWN);

  return (
    <main className="flex flex-col gap-4 p-4 pb-6">
      <header className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <h1 className="truncate text-2xl font-bold">Hi, {user?.firstName || 'User'}</h1>
          <p className="text-sm text-muted">
            Member for {days} days • {photoTotal} photos
          </p>
        </div>
        {/* Words for screen readers inside the badge, not an aria-label: ARIA allows none on a
            plain element, and screen readers read its text, 'pts' (web-pages.ts paints the same). */}
        <span className="inline-flex shrink-0 items-center gap-1 rounded-full bg-primary px-3 py-1 text-sm font-bold text-primary-fg">
          <Award className="size-4" aria-hidden />
          <span data-testid="total-points" aria-hidden={stats ? true : undefined}>
            {known(String(totalPoints))} pts
          </span>
          {stats && <span className="sr-only">{totalPoints} points</span>}
        </span>
      </header>

      {isAdSkipperPro(adsSkipped) && (
        // Not a Card with other colours added: the stylesheet's order, not the class list's, decides
        // between two backgrounds, and the card's bg-surface came later and hid the highlight.
        <section className={PRO_BANNER}>
          <p className="font-bold">Ad Skipper Pro!</p>
          <p className="text-sm">You&apos;ve skipped {adsSkipped} ads</p>
        </section>
      )}

      <section ref={statsCard} tabIndex={-1} aria-label="Your stats" className="grid grid-cols-3 gap-2">
        {[
          { label: 'Ads Skipped', value: known(String(adsSkipped)), icon: SkipForward },
          { label: 'Time Saved', value: known(formatTimeSaved(stats?.timeSaved ?? 0)), icon: Clock },
          { label: 'Avg/Day', value: known(String(avg)), icon: TrendingUp },
        ].map((s) => (
          <div
            key={s.label}
            className="flex flex-col items-center gap-1 rounded-2xl border border-border bg-surface p-3"
          >
            <s.icon className="size-5 text-primary" aria-hidden />
            <p className="text-xl font-bold tabular-nums">{s.value}</p>
            <p className="text-center text-xs text-muted">{s.label}</p>
          </div>
        ))}
        {!stats && statsError && (
          <LoadFailed
            query={statsRetry}
            fallback="Could not load your points."
            target={statsCard}
            className="col-span-3"
          />
        )}
      </section>

      <Card ref={planCard} tabIndex={-1} aria-label="Plan" data-testid="plan-card">
        <div className="flex items-center justify-between gap-3">
          <div className="flex min-w-0 items-center gap-3">
            <Crown className="size-6 shrink-0 text-primary" aria-hidden />
            {subscriptionError ? (
              // Not 'Free Plan' (and Upgrade) for a plan that could not be read: it may be a paid one.
              <LoadFailed query={planRetry} fallback="Could not load your plan." target={planCard} />
            ) : subscribed ? (
              <div>
                <p className="font-bold">{capitalize(subscription.tier)} Plan</p>
                <p className="text-sm text-muted">
                  {/* In the browser's zone, as the server paints it from the zone cookie (web-pages.ts). */}
                  Expires {subscription.endDate ? formatDay(subscription.endDate) : 'N/A'}
                </p>
              </div>
            ) : (
              <div>
                <p className="font-bold">Free Plan</p>
                <p className="text-sm text-muted">Limited features</p>
              </div>
            )}
          </div>
          {!subscribed && !subscriptionError && (
            <Link href="/pricing" className={`${linkButton} bg-primary text-primary-fg`}>
              Upgrade
            </Link>
          )}
        </div>
      </Card>

      <StatusCard now={now} />

      <Card aria-labelledby="recent-photos-title">
        <div className="mb-3 flex items-center justify-between">
          <h2 id="recent-photos-title" className="text-lg font-bold">
            Recent Photos
          </h2>
          <Link href="/gallery" className="min-h-11 content-center px-2 text-sm font-semibold text-primary">
            View All
          </Link>
        </div>
        {photos.length > 0 && (
          <ul className="mb-2 grid grid-cols-4 gap-2">
            {photos.slice(0, RECENT_PHOTOS_LIMIT).map((p) => (
              <li key={p.id} className="relative aspect-square overflow-hidden rounded-lg bg-surface-2">
                {/* On the first screen, and often its largest paint: fetched at once. */}
                <img
                  src={pictureSrc(smallThumbnailUrl(p.thumbnailUrl) || p.url)}
                  alt={p.name}
                  className="size-full object-cover"
                  fetchPriority="high"
                />
                {p.analyzed && p.category && (
                  <span className="absolute inset-x-0.5 bottom-0.5 truncate rounded bg-black/60 px-1 text-[10px] text-white">
                    {categoryLabel(photoCategoryOf(p.category))}
                  </span>
                )}
              </li>
            ))}
          </ul>
        )}
        <p className="text-sm text-muted">
          {photoTotal} total photos • {analyzed} analyzed
        </p>
      </Card>

      <Card aria-labelledby="insights-title">
        <h2 id="insights-title" className="mb-3 text-lg font-bold">
          Your Insights
        </h2>
        <dl className="mb-3 grid grid-cols-2 gap-2 text-sm">
          <div className="rounded-xl bg-surface-2 p-3">
            <dt className="text-muted">Efficiency Score</dt>
            <dd className="text-lg font-bold">{known(`${efficiencyScore(adsSkipped, photoTotal)}%`)}</dd>
          </div>
          <div className="rounded-xl bg-surface-2 p-3">
            <dt className="text-muted">Photos Organized</dt>
            <dd className="text-lg font-bold">{organized}</dd>
          </div>
          {weekly !== null && (
            <div className="col-span-2 rounded-xl bg-surface-2 p-3">
              <dt className="text-muted">Weekly Progress</dt>
              <dd className="text-lg font-bold">+{weekly} pts</dd>
            </div>
          )}
        </dl>
        {stats && <PointsChart days={stats.pointsByDay} />}
      </Card>

      <Card aria-labelledby="activity-title">
        <h2 ref={activityTitle} tabIndex={-1} id="activity-title" className="mb-3 text-lg font-bold">
          Recent Activity
        </h2>
        {activitiesError ? (
          // Not the empty state: a user with a history was told it was gone.
          <LoadFailed query={activitiesRetry} fallback="Could not load your activities." target={activityTitle} />
        ) : !activitiesLoading && activities.length === 0 ? (
          <div className="py-4 text-center">
            <p className="font-semibold">No activities yet</p>
            <p className="text-sm text-muted">Start skipping ads to see your activity</p>
          </div>
        ) : (
          <ActivityList activities={activities.slice(0, RECENT_ACTIVITIES_LIMIT)} now={now} />
        )}
        {activities.length > RECENT_ACTIVITIES_LIMIT && (
          <Link href="/settings" className={`${linkButton} mt-2 w-full border border-border bg-surface`}>
            View All Activities
          </Link>
        )}
      </Card>

      <Card aria-labelledby="quick-actions-title">
        <h2 id="quick-actions-title" className="mb-3 text-lg font-bold">
          Quick Actions
        </h2>
        <div className="grid grid-cols-2 gap-2">
          <Link href="/gallery" className={`${linkButton} bg-primary-soft text-fg`}>
            <Images className="size-4" aria-hidden />
            View Gallery
          </Link>
          <Link href="/organizer" className={`${linkButton} bg-primary-soft text-fg`}>
            <FolderOpen className="size-4" aria-hidden />
            Organize Photos
          </Link>
        </div>
      </Card>

      <TestFeatures onStartAd={startAd} />
    </main>
  );
});
