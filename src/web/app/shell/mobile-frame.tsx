import type { ReactNode } from 'react';

/** Single column, about phone width, centred on wide screens and full width on phones. */
export function MobileFrame({ children }: { children: ReactNode }) {
  return (
    <div className="mx-auto flex min-h-dvh w-full max-w-[430px] flex-col bg-bg shadow-xl sm:border-x sm:border-border">
      {children}
    </div>
  );
}
