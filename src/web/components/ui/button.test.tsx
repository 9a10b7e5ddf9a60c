// @vitest-environment jsdom
import { fireEvent, render, screen } from '@testing-library/react';
import { Button } from './button';

/**
 * A pending button (its request on its way) refuses presses but keeps focus: `disabled` would drop
 * a keyboard user's focus to the page in Chrome, on every screen that sends something.
 */
describe('Button pending', () => {
  it('stays focusable and named, refuses presses, and says it is unavailable', () => {
    const onClick = vi.fn();
    render(
      <Button onClick={onClick} pending>
        Processing...
      </Button>,
    );
    const button = screen.getByRole('button', { name: 'Processing...' });
    button.focus();
    fireEvent.click(button);
    expect(onClick).not.toHaveBeenCalled();
    expect(button).toHaveFocus();
    expect(button).not.toBeDisabled();
    expect(button).toHaveAttribute('aria-disabled', 'true');
  });

  it("refuses its form's submission, and works again once the request is over", () => {
    const onSubmit = vi.fn((e: { preventDefault: () => void }) => e.preventDefault());
    const view = render(
      <form onSubmit={onSubmit}>
        <Button type="submit" pending>
          Sign In
        </Button>
      </form>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(onSubmit).not.toHaveBeenCalled();

    view.rerender(
      <form onSubmit={onSubmit}>
        <Button type="submit">Sign In</Button>
      </form>,
    );
    const button = screen.getByRole('button', { name: 'Sign In' });
    expect(button).not.toHaveAttribute('aria-disabled');
    fireEvent.click(button);
    expect(onSubmit).toHaveBeenCalledTimes(1);
  });
});
