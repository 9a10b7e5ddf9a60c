import { formatRelativeTime, formatTimeSaved } from '@domain/format';

/** Activities with app, relative time, '+N pts' and time saved (dashboard and settings). */
export function ActivityList({
  activities,
  now,
}: {
  activities: readonly { id: string; app: string; createdAt: string; pointsEarned: number; timeSaved: number }[];
  now: Date;
}) {
  return (
    <ul className="flex flex-col divide-y divide-border" data-testid="activity-list">
      {activities.map((a) => (
        <li key={a.id} className="flex items-center justify-between gap-3 py-2">
          <div className="min-w-0">
            <p className="font-semibold">{a.app}</p>
            <p className="text-xs text-muted">{formatRelativeTime(a.createdAt, now)}</p>
          </div>
          <div className="text-right">
            <p className="font-semibold text-success">+{a.pointsEarned} pts</p>
            <p className="text-xs text-muted">{formatTimeSaved(a.timeSaved)}</p>
          </div>
        </li>
      ))}
    </ul>
  );
}
