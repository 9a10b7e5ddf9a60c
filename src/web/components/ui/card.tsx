import type { ComponentPropsWithRef } from 'react';
import { cn } from '../../lib/cn';

export function Card({ className, ...props }: ComponentPropsWithRef<'section'>) {
  return <section className={cn('rounded-2xl border border-border bg-surface p-4 shadow-sm', className)} {...props} />;
}
