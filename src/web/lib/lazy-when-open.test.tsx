// @vitest-environment jsdom
import { act, render, screen } from '@testing-library/react';
import { lazyWhenOpen } from './lazy-when-open';

function Panel({ open, label }: { open: boolean; label: string }) {
  return <div role="dialog" aria-label={label} data-open={open} />;
}

describe('lazyWhenOpen', () => {
  it('loads nothing while closed, loads once at the first opening, and stays mounted after closing', async () => {
    const load = vi.fn(() => Promise.resolve(Panel));
    const LazyPanel = lazyWhenOpen(load);
    const { rerender } = render(<LazyPanel open={false} label="Guide" />);
    expect(load).not.toHaveBeenCalled();
    expect(screen.queryByRole('dialog')).toBeNull();

    rerender(<LazyPanel open label="Guide" />);
    expect(load).toHaveBeenCalledTimes(1);
    expect(await screen.findByRole('dialog', { name: 'Guide' })).toHaveAttribute('data-open', 'true');

    // Closing reaches the dialog itself (its close runs as always), and no second load starts.
    const panel = screen.getByRole('dialog');
    rerender(<LazyPanel open={false} label="Guide" />);
    expect(screen.getByRole('dialog')).toBe(panel);
    expect(panel).toHaveAttribute('data-open', 'false');
    rerender(<LazyPanel open label="Guide" />);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('renders preloaded code in the opening render itself, without a fallback turn', async () => {
    const LazyPanel = lazyWhenOpen(() => Promise.resolve(Panel));
    await LazyPanel.preload();
    const { rerender } = render(<LazyPanel open={false} label="Viewer" />);
    act(() => rerender(<LazyPanel open label="Viewer" />));
    expect(screen.getByRole('dialog', { name: 'Viewer' })).toBeInTheDocument();
  });
});
