import { PageHeader } from '../../components/ui/page-header';

export default function BillingPage() {
  return (
    <main className="flex flex-col gap-4 p-4">
      <PageHeader title="Billing & Subscription" />
    </main>
  );
}
