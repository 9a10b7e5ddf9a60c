import { LogOut } from 'lucide-react';
import { Button } from '../../components/ui/button';
import { PageHeader } from '../../components/ui/page-header';
import { useLogout } from '../auth/use-auth';

export default function SettingsPage() {
  const logout = useLogout();
  return (
    <main className="flex flex-col gap-4 p-4">
      <PageHeader title="Settings" />
      <Button variant="outline" onClick={() => logout.mutate()} disabled={logout.isPending}>
        <LogOut className="size-4" aria-hidden />
        Sign Out
      </Button>
    </main>
  );
}
