import type { Stats } from '@contract/rewards';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const weekday = (day: string) => WEEKDAYS[new Date(`${day}T00:00:00Z`).getUTCDay()] ?? '';

/** Points per day over the last 7 days: a small SVG bar chart, no chart library. */
export function PointsChart({ days }: { days: Stats['pointsByDay'] }) {
  const max = Math.max(1, ...days.map((d) => d.points));
  const width = 280;
  const height = 110;
  const chartTop = 14;
  const chartBottom = height - 18;
  const slot = width / Math.max(1, days.length);
  const barWidth = Math.min(26, slot * 0.6);
  const label = `Points earned per day, last 7 days: ${days.map((d) => `${weekday(d.date)} ${d.points}`).join(', ')}`;
  return (
    <figure className="flex flex-col gap-1">
      <figcaption className="text-sm font-medium">Points this week</figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={label}
        className="h-auto w-full"
        data-testid="points-chart"
      >
        <line x1={0} x2={width} y1={chartBottom} y2={chartBottom} className="stroke-border" strokeWidth={1} />
        {days.map((d, i) => {
          const h = ((chartBottom - chartTop) * d.points) / max;
          const x = i * slot + (slot - barWidth) / 2;
          const isToday = i === days.length - 1;
          return (
            <g key={d.date}>
              <rect
                x={x}
                y={chartBottom - h}
                width={barWidth}
                height={Math.max(h, d.points > 0 ? 2 : 0)}
                rx={4}
                className={isToday ? 'fill-primary' : 'fill-primary/50'}
              />
              {d.points > 0 && (
                <text x={x + barWidth / 2} y={chartBottom - h - 3} textAnchor="middle" className="fill-fg text-[9px]">
                  {d.points}
                </text>
              )}
              <text x={x + barWidth / 2} y={height - 4} textAnchor="middle" className="fill-muted text-[10px]">
                {weekday(d.date)}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
