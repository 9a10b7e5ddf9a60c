import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import type { Duplicates } from '@contract/find';
import { Card } from '../../components/ui/card';
import { duplicatesQueryOptions } from '../gallery';

/** The "Possible duplicates" smart album, present when near-identical photos exist. */
export function useDuplicatesAlbum() {
  const query = useQuery(duplicatesQueryOptions());
  return query.data && query.data.photoCount > 0 ? query.data : null;
}

/** Its entry in the Albums tab, opening the album in the gallery grid. */
export function DuplicatesAlbumItem({ album }: { album: Duplicates }) {
  return (
    <li>
      <Link
        href="/gallery?album=duplicates"
        className="block rounded-2xl focus-visible:outline-2 focus-visible:outline-primary"
      >
        <Card className="flex items-start justify-between gap-2">
          <div className="min-w-0">
            <h3 className="font-semibold">{album.name}</h3>
            <p className="text-sm text-muted">Smart album with {album.photoCount} photos</p>
          </div>
          <span className="shrink-0 rounded-full bg-primary-soft px-2 py-0.5 text-xs font-semibold">Smart Album</span>
        </Card>
      </Link>
    </li>
  );
}
