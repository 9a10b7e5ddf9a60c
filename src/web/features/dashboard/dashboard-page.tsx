import { PageHeader } from '../../components/ui/page-header';
import { useAuth } from '../auth/use-auth';

export default function DashboardPage() {
  const { user } = useAuth();
  return (
    <main className="flex flex-col gap-4 p-4">
      <PageHeader title={`Hi, ${user?.firstName || 'User'}`} />
    </main>
  );
}
