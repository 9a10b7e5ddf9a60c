import { PageHeader } from '../../components/ui/page-header';

export default function GalleryPage() {
  return (
    <main className="flex flex-col gap-4 p-4">
      <PageHeader title="Photo Gallery" />
    </main>
  );
}
