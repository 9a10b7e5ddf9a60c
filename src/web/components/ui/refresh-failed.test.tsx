// @vitest-environment jsdom
import { act, fireEvent, render, screen } from '@testing-library/react';
import { useRef } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { LoadFailed } from './refresh-failed';

/** A failed read whose Try again is answered when the test says so. */
function failedRead() {
  let answer!: (ok: boolean) => void;
  const refetch = vi.fn(
    () =>
      new Promise<{ isError: boolean }>((resolve) => {
        answer = (ok) => resolve({ isError: !ok });
      }),
  );
  const query = { error: new Error('503: Service unavailable'), errorUpdateCount: 1, isFetching: false, refetch };
  return { query: query as unknown as Parameters<typeof LoadFailed>[0]['query'], answer: (ok: boolean) => answer(ok) };
}

function Screen({ query }: { query: Parameters<typeof LoadFailed>[0]['query'] }) {
  const card = useRef<HTMLElement>(null);
  return (
    <main>
      <section ref={card} tabIndex={-1} aria-label="Points">
        <LoadFailed query={query} fallback="Could not load your points." target={card} />
      </section>
      <label>
        Search <input />
      </label>
    </main>
  );
}

describe('LoadFailed', () => {
  it('answered, moves focus from its Try again to the card that shows the answer', async () => {
    const read = failedRead();
    render(<Screen query={read.query} />);
    const button = screen.getByRole('button', { name: 'Try again' });
    button.focus();
    fireEvent.click(button);
    await act(async () => read.answer(true));
    expect(screen.getByRole('region', { name: 'Points' })).toHaveFocus();
  });

  it('answered after the user went elsewhere, leaves focus where the user is', async () => {
    const read = failedRead();
    render(<Screen query={read.query} />);
    const button = screen.getByRole('button', { name: 'Try again' });
    button.focus();
    fireEvent.click(button);
    const search = screen.getByRole('textbox', { name: 'Search' });
    search.focus();
    await act(async () => read.answer(true));
    expect(search).toHaveFocus();
  });

  it('refused again, keeps focus on Try again', async () => {
    const read = failedRead();
    render(<Screen query={read.query} />);
    const button = screen.getByRole('button', { name: 'Try again' });
    button.focus();
    fireEvent.click(button);
    await act(async () => read.answer(false));
    expect(button).toHaveFocus();
  });
});
