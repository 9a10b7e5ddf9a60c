import { Link } from 'wouter';

export default function NotFoundPage() {
  return (
    <main className="flex flex-1 flex-col items-center justify-center gap-3 p-8 text-center">
      <h1 className="text-2xl font-bold">Page not found</h1>
      <p className="text-sm text-muted">The page you are looking for does not exist.</p>
      <Link href="/" className="font-medium text-primary underline-offset-4 hover:underline">
        Go home
      </Link>
    </main>
  );
}
