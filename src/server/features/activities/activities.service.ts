import { adCompletionPoints, skipReward, skipRewardMessage } from '@domain/rewards';
import { SIMULATED_ADS, validateGameResult } from '@domain/games/scoring';
import type { Activity, CreateActivityBody, CreateActivityResponse } from '@contract/activities';
import { PREMIUM_REQUIRED_MESSAGE } from '@contract/subscriptions';
import { badRequest, conflict, forbidden } from '../../http/errors';
import { toAchievementView, type Ledger } from '../rewards/index';
import type { ActivitiesRepository, ActivityRow } from './activities.repository';
import { MISSING_AD_BREAK_MESSAGE, SUPERSEDED_AD_BREAK_MESSAGE, type AdBreaksService } from './ad-breaks.service';

export const ACTIVITIES_LIST_LIMIT = 200;

/**
 * May this user record an ad-overlay activity (an ad break WITHOUT a mini-game)? app.ts passes the
 * subscription check; without one (feature tests), everyone may.
 */
/**
 * Whether the user's plan allowed the ad overlay at `at`, the instant the ad break began (server
 * clock): an ad begun under the plan is paid though the plan ends while it plays (a trial's last
 * seconds), as the overlay was rightly open; one begun after the end is not.
 */
export type CanUseAdOverlay = (userId: string, at: Date) => Promise<boolean>;
export const allowAllAdOverlay: CanUseAdOverlay = async () => true;

export interface ActivitiesServiceDeps {
  repo: ActivitiesRepository;
  ledger: Ledger;
  adBreaks: AdBreaksService;
  canUseAdOverlay?: CanUseAdOverlay;
}

export function toActivity(row: ActivityRow): Activity {
  return {
    id: row.id,
    app: row.app,
    adDuration: row.adDuration,
    pointsEarned: row.pointsEarned,
    timeSaved: row.timeSaved,
    gameType: row.gameType,
    gameScore: row.gameScore,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Records a finished ad break the server witnessed. The event id (`Idempotency-Key`, else body
 * `eventId`) is the ad-break id from `POST /api/ad-breaks`: missing is 400, unknown or another
 * user's 404, superseded or not yet over (less the clock leeway) or past its record window 409.
 * It is recorded once; a replay answers 200 `recorded: false`. The server recomputes everything
 * the client posts:
 * - the app must be one of SIMULATED_ADS, adDuration its duration, and the ad break's app, else 400;
 * - timeSaved = the ad's duration;
 * - pointsEarned = validateGameResult(gameData).points with a game (scores the rules cannot reach
 *   within the ad are 400), otherwise adCompletionPoints(duration); plus the skip reward
 *   ceil(duration / 10) as its own entry.
 * The ad break is claimed (marked recorded unless a newer one superseded it), then the activity row
 * and its ledger entries (`activity:<eventId>`, `skip:<eventId>`, the achievements it makes due)
 * are ONE statement (atomic).
 */
export function createActivitiesService({
  repo,
  ledger,
  adBreaks,
  canUseAdOverlay = allowAllAdOverlay,
}: ActivitiesServiceDeps) {
  return {
    async list(userId: string): Promise<Activity[]> {
      return (await repo.listForUser(userId, ACTIVITIES_LIST_LIMIT)).map(toActivity);
    },

    async record(userId: string, body: CreateActivityBody, idempotencyKey?: string): Promise<CreateActivityResponse> {
      const sent = idempotencyKey?.trim() || body.eventId;
      if (!sent) throw badRequest(MISSING_AD_BREAK_MESSAGE);
      if (sent.length > 200) throw badRequest('Idempotency-Key is too long');
      // The id is an ad break's uuid, which PostgreSQL finds in any letter case, while the activity
      // and ledger rows key on the text: one spelling per break, or each spelling paid again.
      const eventId = sent.toLowerCase();
      const ad = SIMULATED_ADS.find((a) => a.app === body.app);
      if (!ad) throw badRequest(`Unknown app: ${body.app}`);
      if (body.adDuration !== ad.durationSeconds) {
        throw badRequest(`${ad.app} ads last ${ad.durationSeconds} seconds`);
      }
      let points: number;
      let game: { gameType: string; score: number; completed: boolean } | null = null;
      try {
        const adBreak = await adBreaks.recordable(userId, eventId, ad.app);
        if (adBreak.recordedAt) {
          const existing = await repo.findByEvent(userId, eventId);
          if (existing) return replay(existing);
        }
        if (body.gameData) {
          const check = validateGameResult(body.gameData, ad.durationSeconds);
          if (!check.ok) throw badRequest(check.reason);
          points = check.points;
          game = { gameType: check.gameType, score: check.score, completed: check.completed };
        } else {
          if (!(await canUseAdOverlay(userId, adBreak.startedAt))) throw forbidden(PREMIUM_REQUIRED_MESSAGE);
          points = adCompletionPoints(ad.durationSeconds);
        }
      } catch (err) {
        // A replay of a recorded event answers as a replay, whatever its body or plan now says.
        const existing = await repo.findByEvent(userId, eventId);
        if (existing) return replay(existing);
        throw err;
      }
      if (!(await adBreaks.claim(userId, eventId))) {
        // A newer ad break superseded this one after the check above.
        const existing = await repo.findByEvent(userId, eventId);
        if (existing) return replay(existing);
        throw conflict(SUPERSEDED_AD_BREAK_MESSAGE);
      }
      const skip = skipReward(ad.durationSeconds);
      const values = {
        userId,
        app: ad.app,
        adDuration: ad.durationSeconds,
        timeSaved: ad.durationSeconds,
        pointsEarned: points,
        gameType: game?.gameType ?? null,
        gameScore: game?.score ?? null,
        gameCompleted: game?.completed ?? null,
        eventId,
      };
      // Two round trips: the snapshot (what the award makes due), then ONE statement that inserts
      // the row and, only if it is new, its entries and those achievements (see ledger.ts).
      const snap = await ledger.snapshot(userId);
      const due = ledger.dueAfter(snap, { points: points + skip, adsSkipped: 1 });
      const result = await ledger.recordEventWithAward(
        userId,
        repo.insertStatement(values),
        [
          { source: 'activity', sourceEventId: `activity:${eventId}`, points, message: `${ad.app} ad` },
          { source: 'skip', sourceEventId: `skip:${eventId}`, points: skip, message: skipRewardMessage(skip) },
        ],
        due,
      );
      if (!result.event) {
        // Recorded before (a replay) or by a racing request with the same event id.
        const row = await repo.findByEvent(userId, eventId);
        if (!row) throw badRequest('Could not record the activity');
        return replay(row);
      }
      const row: ActivityRow = { ...values, id: result.event.id, createdAt: result.event.createdAt };
      const achievementPoints = result.newAchievements.reduce((s, a) => s + a.points, 0);
      return {
        activity: toActivity(row),
        recorded: true,
        skipReward: skip,
        pointsAdded: result.added.reduce((s, e) => s + e.points, 0) + achievementPoints,
        message: skipRewardMessage(skip),
        newAchievements: result.newAchievements.map(toAchievementView),
      };
    },
  };
}
export type ActivitiesService = ReturnType<typeof createActivitiesService>;

function replay(row: ActivityRow): CreateActivityResponse {
  return {
    activity: toActivity(row),
    recorded: false,
    skipReward: 0,
    pointsAdded: 0,
    message: 'Already recorded',
    newAchievements: [],
  };
}
