import { PageHeader } from '../../components/ui/page-header';

export default function PricingPage() {
  return (
    <main className="flex flex-col gap-4 p-4">
      <PageHeader title="Choose Your Plan" />
    </main>
  );
}
