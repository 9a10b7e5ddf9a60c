import type { ReactNode } from 'react';

/**
 * The title is never narrower than its longest word: when the actions leave less than that (the
 * gallery's Select and Upload at 320 px), they wrap below it instead of covering it. The
 * server-painted gallery (`web-pages.ts`) repeats this markup.
 */
export function PageHeader({ title, subtitle, action }: { title: string; subtitle?: ReactNode; action?: ReactNode }) {
  return (
    <div className="flex flex-wrap items-start justify-between gap-3">
      <div className="min-w-min flex-1">
        <h1 className="text-2xl font-bold">{title}</h1>
        {subtitle && <p className="text-sm text-muted">{subtitle}</p>}
      </div>
      {action && <div className="flex shrink-0 gap-3">{action}</div>}
    </div>
  );
}
