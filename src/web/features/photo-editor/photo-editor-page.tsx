import { PageHeader } from '../../components/ui/page-header';

export default function PhotoEditorPage() {
  return (
    <main className="flex flex-col gap-4 p-4">
      <PageHeader title="Photo Editor" />
    </main>
  );
}
