import { CreditCard, FolderKanban, Home, Images } from 'lucide-react';
import { Link, useLocation } from 'wouter';
import { cn } from '../../lib/cn';

const TABS = [
  { href: '/', label: 'Home', icon: Home },
  { href: '/gallery', label: 'Gallery', icon: Images },
  { href: '/organizer', label: 'Organize', icon: FolderKanban },
  { href: '/billing', label: 'Billing', icon: CreditCard },
] as const;

export function BottomNav() {
  const [location] = useLocation();
  return (
    <nav
      aria-label="Main"
      className="sticky bottom-0 z-shell grid grid-cols-4 border-t border-border bg-surface/95 pb-[env(safe-area-inset-bottom)] backdrop-blur"
    >
      {TABS.map(({ href, label, icon: Icon }) => {
        const active = href === '/' ? location === '/' : location.startsWith(href);
        return (
          <Link
            key={href}
            href={href}
            aria-current={active ? 'page' : undefined}
            className={cn(
              'flex min-h-14 flex-col items-center justify-center gap-0.5 text-xs font-medium',
              active ? 'text-primary' : 'text-muted hover:text-fg',
            )}
          >
            <Icon className="size-5" aria-hidden />
            {label}
          </Link>
        );
      })}
    </nav>
  );
}
