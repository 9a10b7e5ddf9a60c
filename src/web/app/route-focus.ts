import { useEffect } from 'react';

/** Sets the document's title while mounted and whenever it changes. */
export function useDocumentTitle(title: string) {
  useEffect(() => {
    document.title = title;
  }, [title]);
}
