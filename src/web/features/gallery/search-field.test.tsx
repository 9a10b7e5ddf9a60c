// @vitest-environment jsdom
import { fireEvent, render, screen } from '@testing-library/react';
import { SearchField } from './search-field';

describe('SearchField', () => {
  it('Clear search empties the search and leaves focus in the field, not on the page (the button goes)', () => {
    const onSearch = vi.fn();
    render(<SearchField onSearch={onSearch} />);
    const box = screen.getByRole('searchbox', { name: 'Search photos' });
    fireEvent.change(box, { target: { value: 'dog' } });
    const clear = screen.getByRole('button', { name: 'Clear search' });
    clear.focus();
    fireEvent.click(clear);
    expect(onSearch).toHaveBeenLastCalledWith('');
    expect(box).toHaveValue('');
    expect(screen.queryByRole('button', { name: 'Clear search' })).toBeNull();
    expect(box).toHaveFocus();
  });
});
