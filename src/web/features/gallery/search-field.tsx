import { Search, X } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { SEARCH_QUERY_MAX } from '@domain/find';

/** Waits this long after the last keystroke before searching. */
const DEBOUNCE_MS = 300;

/**
 * The gallery's one search field: name, category, tags, description, camera and month. Calls
 * `onSearch` with the trimmed text after typing pauses (at once on Enter or clear).
 */
export function SearchField({ onSearch }: { onSearch: (q: string) => void }) {
  const [text, setText] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const timer = setTimeout(() => onSearch(text.trim()), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, onSearch]);
  return (
    <form
      role="search"
      className="relative"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(text.trim());
      }}
    >
      <Search className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted" aria-hidden />
      <input
        ref={input}
        type="search"
        value={text}
        maxLength={SEARCH_QUERY_MAX}
        onChange={(e) => setText(e.currentTarget.value)}
        placeholder="Search: dog, 2024, food, iPhone..."
        aria-label="Search photos"
        className="min-h-11 w-full rounded-xl border border-border bg-surface pr-11 pl-9 text-sm [&::-webkit-search-cancel-button]:hidden"
      />
      {text && (
        <button
          type="button"
          aria-label="Clear search"
          onClick={() => {
            setText('');
            onSearch('');
            // The button goes with the text: focus stays with the search, ready for the next one.
            input.current?.focus();
          }}
          className="absolute top-0 right-0 grid size-11 place-items-center text-muted"
        >
          <X className="size-4" aria-hidden />
        </button>
      )}
    </form>
  );
}
