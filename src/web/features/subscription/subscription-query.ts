import type { Subscription } from '@contract/subscriptions';
import { FREE_SUBSCRIPTION } from '@contract/subscriptions-values';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { serverNow } from '../../lib/server-clock';

/** `GET /api/subscription` answers a free default when the user has none; cached 5 minutes. */
export const subscriptionQueryOptions = () =>
  queryOptions<Subscription>({
    queryKey: ['/api/subscription'],
    staleTime: 5 * 60 * 1000,
  });

/** setTimeout's longest delay (about 24.8 days); a longer one fires at once. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;
const RETRY_FIRST_MS = 1_000;
const RETRY_LONGEST_MS = 60_000;
/** How long after its end a plan whose renewal is not confirmed yet is asked again. */
const RENEWAL_WAIT_MS = 10 * 60 * 1000;

/**
 * When the plan was last answered, a refusal included: an ask at the end refused (a server
 * restarting, a limit) changes no data, and counted by the data alone it set no next ask, so the
 * ended plan stayed on screen (and its ad overlay offered) until the screen was left.
 */
const answeredAt = (q: { dataUpdatedAt: number; errorUpdatedAt: number } | undefined) =>
  Math.max(q?.dataUpdatedAt ?? 0, q?.errorUpdatedAt ?? 0);

/**
 * Asks for the plan again when it ends by the server's clock. Queries never refetch by themselves
 * here, so a screen left open showed an ended trial's '<TIER> Plan' and 'Expires <date>' (a date
 * gone by) and offered the ad overlay, whose ad then went unpaid, until the user left the screen.
 * A paid plan renews at that moment too, and Stripe's word of it reaches the server a little later:
 * until then the server answers that a payment is due, so the plan is asked again for a while, as
 * it is when the server still answers it on (the clocks agree only to the Date header's second):
 * after 1 s, then 2 s, 4 s... up to a minute apart, for 10 minutes after the end, never in a tight
 * loop. The server decides every time.
 */
function useRefetchAtEnd(data: Subscription | undefined, updatedAt: number) {
  const qc = useQueryClient();
  const watched = !!data?.endDate && (data.status === 'active' || data.paymentDue);
  const end = watched ? Date.parse(data.endDate!) : NaN;
  const late = useRef({ end: NaN, answers: 0 });
  useEffect(() => {
    if (Number.isNaN(end)) return;
    const left = end - serverNow();
    if (left <= -RENEWAL_WAIT_MS) return;
    if (left > 0) late.current = { end, answers: 0 };
    else if (late.current.end === end) late.current.answers++;
    else late.current = { end, answers: 1 };
    const delay =
      left > 0 ? left : Math.min(RETRY_FIRST_MS * 2 ** Math.min(late.current.answers - 1, 20), RETRY_LONGEST_MS);
    // A yearly plan ends past the longest timer: a tab open that long is asked again at its next screen.
    if (delay > LONGEST_TIMER_MS) return;
    const id = setTimeout(() => {
      // Several screens' hooks fire together: one request, none cancelled for another, and none
      // after another hook's answer has come (a refusal too).
      const { queryKey } = subscriptionQueryOptions();
      if (answeredAt(qc.getQueryState(queryKey)) > updatedAt) return;
      void qc.invalidateQueries({ queryKey }, { cancelRefetch: false });
    }, delay);
    return () => clearTimeout(id);
  }, [qc, end, updatedAt]);
}

/** The subscription, the free plan until it loads. */
export function useSubscription() {
  const query = useQuery(subscriptionQueryOptions());
  useRefetchAtEnd(query.data, answeredAt(query));
  const subscription = query.data ?? FREE_SUBSCRIPTION;
  return { ...query, subscription, isActive: subscription.status === 'active' };
}

/**
 * The server's answer as it is (undefined until it loads), with the tier that counts and the end of
 * a running trial. Off while signed out, since the pricing screen is public.
 */
export function useSubscriptionDetails(enabled = true) {
  const query = useQuery({ ...subscriptionQueryOptions(), enabled });
  useRefetchAtEnd(enabled ? query.data : undefined, answeredAt(query));
  const data = query.data;
  const isActive = data?.status === 'active';
  return {
    ...query,
    subscription: data,
    isActive,
    tier: isActive ? data.tier : 'free',
    /** The end of a running free trial, or null: nothing is charged and nothing renews it. */
    trialEndsAt: isActive && data.trial ? (data.trialEndsAt ?? data.endDate) : null,
  };
}
