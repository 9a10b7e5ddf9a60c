import { Eye } from 'lucide-react';
import type { ReactNode } from 'react';
import { Card } from '../../components/ui/card';

export function AuthLayout({ title, subtitle, children }: { title: string; subtitle: string; children: ReactNode }) {
  return (
    <main className="flex flex-1 flex-col justify-center gap-6 px-5 py-8">
      <div className="flex flex-col items-center gap-2 text-center">
        <span className="grid size-14 place-items-center rounded-2xl bg-primary text-primary-fg" aria-hidden>
          <Eye className="size-7" />
        </span>
        <h1 className="text-2xl font-bold">{title}</h1>
        <p className="text-sm text-muted">{subtitle}</p>
      </div>
      <Card className="flex flex-col gap-4 p-5">{children}</Card>
    </main>
  );
}
