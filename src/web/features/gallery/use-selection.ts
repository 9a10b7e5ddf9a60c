import { useCallback, useMemo, useState } from 'react';
import type { GridSelection } from './photo-grid';
import type { Photo } from '@contract/photos';

/**
 * The gallery's selection: on while selecting (the Select button or a long press), the ids
 * chosen in the order chosen. Ids of photos no longer listed (deleted elsewhere) drop out.
 */
export function useSelection(photos: Photo[]): GridSelection & { ids: string[]; begin: () => void; stop: () => void } {
  const [active, setActive] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);
  const listed = useMemo(() => new Set(photos.map((p) => p.id)), [photos]);
  const ids = useMemo(() => chosen.filter((id) => listed.has(id)), [chosen, listed]);
  const selected = useMemo(() => new Set(ids), [ids]);

  const toggle = useCallback(
    (id: string) => setChosen((c) => (c.includes(id) ? c.filter((x) => x !== id) : [...c, id])),
    [],
  );
  const start = useCallback((id: string) => {
    setActive(true);
    setChosen([id]);
  }, []);
  const begin = useCallback(() => {
    setActive(true);
    setChosen([]);
  }, []);
  const stop = useCallback(() => {
    setActive(false);
    setChosen([]);
  }, []);
  return { active, selected, ids, toggle, start, begin, stop };
}
