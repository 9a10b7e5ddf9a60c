import { formatElapsed } from '@domain/format';
import { Power } from 'lucide-react';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { LoadFailed } from '../../components/ui/refresh-failed';
import { useRef } from 'react';
import { useAppStatus, useSetAppActive } from '../rewards';

/** Whether ad monitoring runs, since when, and the button that switches it. */
export function StatusCard({ now }: { now: Date }) {
  const status = useAppStatus();
  const { data, error } = status;
  const title = useRef<HTMLHeadingElement>(null);
  const setActive = useSetAppActive();
  const active = !!data?.isActive;
  // A status that could not be read (a limit, a server restarting) is not 'Inactive': that told a
  // user whose monitoring was on that it was off.
  const unread = !data && !!error;
  return (
    <Card aria-labelledby="status-card-title" data-testid="status-card">
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 ref={title} tabIndex={-1} id="status-card-title" className="text-lg font-bold">
            {active ? 'Eyevu Active' : unread ? 'Eyevu' : 'Inactive'}
          </h2>
          {unread ? (
            <LoadFailed query={status} fallback="Could not load the app status." target={title} />
          ) : (
            <p className="text-sm text-muted">
              {active ? 'Eyevu is running in the background' : 'Ad monitoring is off'}
            </p>
          )}
        </div>
        <Button
          variant={active ? 'outline' : 'primary'}
          size="sm"
          className="min-h-11"
          // Focus stays on the pressed switch while its request runs: a disabled button loses it in
          // Chrome, and the label that changes under it (Activate, Deactivate) is where to press next.
          pending={setActive.isPending}
          disabled={!data}
          onClick={() => setActive.mutate(!active)}
        >
          <Power className="size-4" aria-hidden />
          {active ? 'Deactivate' : 'Activate'}
        </Button>
      </div>
      {!unread && (
        <div className="mt-3 flex flex-wrap gap-2 text-xs font-semibold">
          <span
            className={`rounded-full px-2 py-0.5 ${active ? 'bg-success text-success-fg' : 'bg-surface-2 text-muted'}`}
          >
            {active ? 'Active' : 'Inactive'}
          </span>
          {data?.isMonitoring && (
            <span className="rounded-full bg-primary-soft px-2 py-0.5 text-primary">Monitoring</span>
          )}
        </div>
      )}
      {active && (
        <div className="mt-2 text-sm text-muted">
          {data?.activeSince && <p>Active for {formatElapsed(data.activeSince, now)}</p>}
          {data?.lastActivity && <p>Last activity: {formatElapsed(data.lastActivity, now)} ago</p>}
        </div>
      )}
    </Card>
  );
}
