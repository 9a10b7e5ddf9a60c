// @vitest-environment jsdom
import { createMemoryGame } from '@domain/games/memory';
import { createTriviaGame } from '@domain/games/trivia';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { SETTLE_MS } from '../../lib/settling-presses';
import { MiniGameDialog, type MiniGameDialogProps } from './mini-game-dialog';

const SEED = 1234;
const T0 = new Date('2025-03-01T10:00:00Z').getTime();

function setup(overrides: Partial<MiniGameDialogProps> = {}) {
  const onFinish = vi.fn();
  const onOpenChange = vi.fn();
  const props: MiniGameDialogProps = {
    open: true,
    onOpenChange,
    app: 'Instagram',
    adDuration: 15,
    onFinish,
    nextSeed: () => SEED,
    ...overrides,
  };
  const utils = render(<MiniGameDialog {...props} />);
  return { ...utils, props, onFinish, onOpenChange };
}

/**
 * Advances the fake clock in small steps: React re-arms a game's next deadline in an effect after
 * each tick, so one long jump inside a single act() would only fire the first deadline.
 */
function advance(ms: number) {
  for (let left = ms; left > 0; left -= 20) act(() => vi.advanceTimersByTime(Math.min(20, left)));
  act(() => vi.advanceTimersByTime(0));
}
const click = (el: HTMLElement) => act(() => fireEvent.click(el));
const button = (name: string | RegExp) => screen.getByRole('button', { name });

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('MiniGameDialog selection', () => {
  it('shows the title, app and ad length, and the three games', () => {
    setup();
    const dialog = screen.getByRole('dialog', { name: 'Ad Break Mini-Game' });
    expect(within(dialog).getByText('Instagram ad • 15s')).toBeInTheDocument();
    expect(within(dialog).getByRole('heading', { name: 'Choose Your Game' })).toBeInTheDocument();
    expect(within(dialog).getByText('Play a quick game while the ad runs!')).toBeInTheDocument();
    expect(button(/Memory Match/)).toHaveTextContent('Find matching pairs of emojis');
    expect(button(/Reaction Speed/)).toHaveTextContent('Tap targets as fast as you can');
    expect(button(/Quick Trivia/)).toHaveTextContent('Answer fun questions about tech & photos');
    expect(button('Close mini-game')).toBeInTheDocument();
  });

  it('Skip Game reports a no-game outcome and closes', () => {
    const { onFinish, onOpenChange } = setup();
    click(button('Skip Game'));
    expect(onFinish).toHaveBeenCalledExactlyOnceWith({ gameType: 'none', score: 0, completed: false });
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it('closing mid-game reports a zero-score unfinished game', () => {
    const { onFinish, onOpenChange } = setup();
    click(button(/Reaction Speed/));
    click(button('Start Game'));
    click(screen.getAllByRole('button', { name: 'Target' })[0]!);
    click(button('Close mini-game'));
    expect(onFinish).toHaveBeenCalledExactlyOnceWith({ gameType: 'reaction', score: 0, completed: false });
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it('resets to the selection view each time it opens', () => {
    const { rerender, props } = setup();
    click(button(/Quick Trivia/));
    expect(button('Start Game')).toBeInTheDocument();
    rerender(<MiniGameDialog {...props} open={false} />);
    rerender(<MiniGameDialog {...props} open />);
    expect(screen.getByRole('heading', { name: 'Choose Your Game' })).toBeInTheDocument();
  });
});

describe('a double click', () => {
  // A pointer's clicks carry their count: the second click of a double click has detail 2.
  const pointerClick = (el: HTMLElement, detail: number) => act(() => fireEvent.click(el, { detail }));

  it('on Start Game starts the game and flips no card under it; a single click flips one at once', () => {
    setup();
    click(button(/Memory Match/));
    pointerClick(button('Start Game'), 1);
    pointerClick(button('Card 1'), 2);
    expect(button('Card 1')).not.toHaveAttribute('aria-disabled');
    // A single click passes at once: a quick player is not held back.
    pointerClick(button('Card 1'), 1);
    expect(button(/^Card 1: /)).toHaveAttribute('aria-disabled', 'true');
    // Once the board has settled, a click that counts as a double one plays as well.
    advance(SETTLE_MS);
    pointerClick(button('Card 2'), 2);
    expect(button(/^Card 2: /)).toHaveAttribute('aria-disabled', 'true');
  });

  it('on a game choice opens its intro without starting it', () => {
    setup();
    pointerClick(button(/Quick Trivia/), 1);
    pointerClick(button('Start Game'), 2);
    expect(screen.getByRole('heading', { name: 'Quick Trivia' })).toBeInTheDocument();
    expect(button('Start Game')).toBeInTheDocument();
  });

  it("on the first trivia answer's Start Game answers nothing", () => {
    setup();
    click(button(/Quick Trivia/));
    pointerClick(button('Start Game'), 1);
    const first = screen.getAllByRole('button', { name: /^A\. / })[0]!;
    pointerClick(first, 2);
    expect(screen.getByRole('status')).toHaveTextContent('');
    expect(first).not.toHaveAttribute('aria-disabled');
  });
});

describe('Trivia', () => {
  const questions = createTriviaGame({ seed: SEED, timeLimitSeconds: 15 }).questions;

  it('has an intro, then answers with feedback, locks, and moves on after 2 s', () => {
    setup();
    click(button(/Quick Trivia/));
    expect(screen.getByRole('heading', { name: 'Quick Trivia' })).toBeInTheDocument();
    click(button('Start Game'));

    expect(screen.getByText('Question 1/8')).toBeInTheDocument();
    expect(screen.getByText('15s left')).toBeInTheDocument();
    const q1 = questions[0]!;
    expect(screen.getByText(q1.category)).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: q1.question })).toBeInTheDocument();
    const options = q1.options.map((o, i) => button(`${'ABCD'[i]}. ${o}`));

    advance(1000);
    expect(screen.getByText('14s left')).toBeInTheDocument();
    click(options[q1.correctAnswer]!);
    expect(screen.getByRole('status')).toHaveTextContent('Correct! +10 points');
    expect(screen.getByText('Score: 10')).toBeInTheDocument();
    expect(options[q1.correctAnswer]).toHaveClass('bg-success');
    for (const o of options) expect(o).toHaveAttribute('aria-disabled', 'true');
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '13');

    advance(1999);
    expect(screen.getByText('Question 1/8')).toBeInTheDocument();
    advance(1);
    expect(screen.getByText('Question 2/8')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('');

    const q2 = questions[1]!;
    const wrong = (q2.correctAnswer + 1) % 4;
    click(button(`${'ABCD'[wrong]}. ${q2.options[wrong]}`));
    expect(screen.getByRole('status')).toHaveTextContent(`Incorrect. The answer was ${q2.options[q2.correctAnswer]}.`);
    expect(button(`${'ABCD'[wrong]}. ${q2.options[wrong]}`)).toHaveClass('bg-danger');
    expect(button(`${'ABCD'[q2.correctAnswer]}. ${q2.options[q2.correctAnswer]}`)).toHaveClass('bg-success');
    expect(screen.getByText('Score: 10')).toBeInTheDocument();
  });

  it('keeps focus on the pressed option while the answer is shown, and refuses a second answer', () => {
    const [q1] = createTriviaGame({ seed: SEED, timeLimitSeconds: 15 }).questions;
    setup();
    click(button(/Quick Trivia/));
    click(button('Start Game'));
    const wrong = (q1!.correctAnswer + 1) % 4;
    const pressed = button(`${'ABCD'[wrong]}. ${q1!.options[wrong]}`);
    act(() => pressed.focus());
    click(pressed);
    // Not `disabled`: Chrome would move focus off the pressed option to the page for 2 s.
    expect(pressed).toHaveFocus();
    expect(pressed).toBeEnabled();
    expect(pressed).toHaveAttribute('aria-disabled', 'true');
    click(button(`${'ABCD'[q1!.correctAnswer]}. ${q1!.options[q1!.correctAnswer]}`));
    expect(screen.getByRole('status')).toHaveTextContent(
      `Incorrect. The answer was ${q1!.options[q1!.correctAnswer]}.`,
    );
    expect(screen.getByText('Score: 0')).toBeInTheDocument();
  });

  it('plays 8 questions to the result view and reports the score', () => {
    const all = createTriviaGame({ seed: SEED, timeLimitSeconds: 45 }).questions;
    const { onFinish } = setup({ adDuration: 45 });
    click(button(/Quick Trivia/));
    click(button('Start Game'));
    for (let i = 0; i < 8; i++) {
      const q = all[i]!;
      expect(screen.getByText(`Question ${i + 1}/8`)).toBeInTheDocument();
      click(button(`${'ABCD'[q.correctAnswer]}. ${q.options[q.correctAnswer]}`));
      advance(2000);
    }
    // Last answer at 14 s of 45: 31 s left -> bonus round(6.9) = 7; 80 + 7 = 87.
    expect(onFinish).toHaveBeenCalledExactlyOnceWith({ gameType: 'trivia', score: 87, completed: true });
    expect(screen.getByRole('heading', { name: 'Game Complete!' })).toBeInTheDocument();
    expect(screen.getByText('Great job!')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: '2 of 3 stars' })).toBeInTheDocument();
    expect(screen.getByText('You earned 8 Eyevu points!')).toBeInTheDocument();
  });

  it('ends with the points so far when the time limit runs out', () => {
    const { onFinish, onOpenChange } = setup({ timeLimitSeconds: 10 });
    click(button(/Quick Trivia/));
    click(button('Start Game'));
    advance(10_000);
    expect(onFinish).toHaveBeenCalledExactlyOnceWith({ gameType: 'trivia', score: 0, completed: true });
    expect(screen.getByText('Good try!')).toBeInTheDocument();
    expect(screen.getByText('You earned 0 Eyevu points!')).toBeInTheDocument();
    click(button('Continue Browsing'));
    expect(onOpenChange).toHaveBeenCalledWith(false);
    expect(onFinish).toHaveBeenCalledTimes(1);
  });
});

describe('Memory', () => {
  const cards = createMemoryGame({ seed: SEED }).cards;
  const cardButton = (id: number) => screen.getByRole('button', { name: new RegExp(`^Card ${id + 1}(:|$)`) });
  const twinOf = (id: number) => cards.find((c) => c.id !== id && c.emoji === cards[id]!.emoji)!.id;

  it('flips a mismatch back after 1 s and refuses a third flip', () => {
    setup();
    click(button(/Memory Match/));
    click(button('Start Game'));
    const a = 0;
    const b = cards.find((c) => c.emoji !== cards[0]!.emoji)!.id;
    const c = cards.find((x) => x.id !== a && x.id !== b)!.id;
    click(cardButton(a));
    click(cardButton(b));
    expect(cardButton(a)).toHaveAccessibleName(`Card ${a + 1}: ${cards[a]!.emoji}`);
    expect(screen.getByRole('status')).toHaveTextContent('Not a match.');
    click(cardButton(c));
    expect(cardButton(c)).toHaveAccessibleName(`Card ${c + 1}`);
    advance(999);
    expect(cardButton(b)).toHaveAttribute('aria-disabled', 'true');
    advance(1);
    expect(cardButton(a)).toHaveAccessibleName(`Card ${a + 1}`);
    expect(cardButton(b)).not.toHaveAttribute('aria-disabled');
  });

  it('keeps focus on a flipped card (locked by aria-disabled, not disabled) and refuses a second press', () => {
    setup();
    click(button(/Memory Match/));
    click(button('Start Game'));
    const a = 0;
    const b = cards.find((c) => c.emoji !== cards[0]!.emoji)!.id;
    act(() => cardButton(a).focus());
    click(cardButton(a));
    // Chrome moves focus off a button that becomes `disabled` to the page: a keyboard player would
    // have to Tab back through the dialog after every flip.
    expect(cardButton(a)).toHaveFocus();
    expect(cardButton(a)).toBeEnabled();
    expect(cardButton(a)).toHaveAttribute('aria-disabled', 'true');
    click(cardButton(a));
    expect(cardButton(a)).toHaveAccessibleName(`Card ${a + 1}: ${cards[a]!.emoji}`);
    expect(screen.getByText('Moves').nextSibling).toHaveTextContent('0');

    act(() => cardButton(b).focus());
    click(cardButton(b));
    expect(cardButton(b)).toHaveFocus();
    expect(cardButton(b)).toBeEnabled();
    expect(screen.getByText('Moves').nextSibling).toHaveTextContent('1');
    advance(1000);
    expect(cardButton(b)).toHaveFocus();
    expect(cardButton(b)).not.toHaveAttribute('aria-disabled');
  });

  it('shows the time left of a timed board, and ends with the matches so far when it runs out', () => {
    const { onFinish } = setup({ timeLimitSeconds: 10 });
    click(button(/Memory Match/));
    advance(3000);
    click(button('Start Game'));
    expect(screen.getByText('Time').nextSibling).toHaveTextContent('10s');
    const twin = cards.find((c) => c.id !== 0 && c.emoji === cards[0]!.emoji)!.id;
    click(cardButton(0));
    click(cardButton(twin));
    advance(4000);
    expect(screen.getByText('Time').nextSibling).toHaveTextContent('6s');
    advance(6000);
    expect(onFinish).toHaveBeenCalledExactlyOnceWith({ gameType: 'memory', score: 10, completed: true });
  });

  it('finds all pairs and completes 0.5 s after the last', () => {
    const { onFinish } = setup();
    click(button(/Memory Match/));
    click(button('Start Game'));
    const done = new Set<number>();
    for (const card of cards) {
      if (done.has(card.id)) continue;
      const twin = twinOf(card.id);
      done.add(card.id).add(twin);
      click(cardButton(card.id));
      click(cardButton(twin));
    }
    expect(screen.getByRole('status')).toHaveTextContent('Match! +10 points. 6 of 6 pairs found.');
    expect(cardButton(0)).toHaveAttribute('aria-disabled', 'true');
    advance(499);
    expect(onFinish).not.toHaveBeenCalled();
    advance(1);
    expect(onFinish).toHaveBeenCalledExactlyOnceWith({ gameType: 'memory', score: 60, completed: true });
    expect(screen.getByRole('heading', { name: 'Game Complete!' })).toBeInTheDocument();
    expect(screen.getByText('You earned 6 Eyevu points!')).toBeInTheDocument();
  });
});

describe('Reaction', () => {
  it('counts a hit, a miss after 2 s, and reports 0.5 s after 15 hits', () => {
    const { onFinish } = setup({ adDuration: 45 });
    click(button(/Reaction Speed/));
    expect(screen.getByRole('heading', { name: 'Reaction Speed' })).toBeInTheDocument();
    click(button('Start Game'));
    click(screen.getByRole('button', { name: 'Target' }));
    expect(screen.getByRole('status')).toHaveTextContent('Hit! 1 of 15.');

    // Next target at 800 ms; leave it for 2 s.
    advance(800);
    expect(screen.getAllByRole('button', { name: 'Target' })).toHaveLength(1);
    advance(2000);
    expect(screen.getByText('1/15')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent(/Missed!/);

    // Hit every target as it appears until 15 hits.
    for (let guard = 0; guard < 200 && !screen.queryByText('15/15'); guard++) {
      const targets = screen.queryAllByRole('button', { name: 'Target' });
      if (targets.length) click(targets[0]!);
      else advance(50);
    }
    expect(screen.getByRole('status')).toHaveTextContent('15 hits! Well done.');
    advance(499);
    expect(onFinish).not.toHaveBeenCalled();
    advance(1);
    const score = onFinish.mock.calls[0]![0].score as number;
    expect(onFinish).toHaveBeenCalledExactlyOnceWith({ gameType: 'reaction', score, completed: true });
    expect(score).toBeGreaterThanOrEqual(150);
    expect(screen.getByText('Amazing!')).toBeInTheDocument();
    expect(screen.getByText(`You earned ${Math.floor(score / 10)} Eyevu points!`)).toBeInTheDocument();
  });
});

describe('Reaction by keyboard', () => {
  const targets = () => screen.queryAllByRole('button', { name: 'Target' });

  it('keeps focus on the targets: Start lands on the first, a hit or a miss moves to the oldest left, the end to the area', () => {
    setup({ adDuration: 45, timeLimitSeconds: 3 });
    click(button(/Reaction Speed/));
    const start = button('Start Game');
    act(() => start.focus());
    click(start);
    // A keyboard player must not have to Tab from the dialog's top to each new target.
    const [first] = targets();
    expect(first).toHaveFocus();

    advance(800);
    expect(targets()).toHaveLength(2);
    expect(first).toHaveFocus();
    const second = targets()[1]!;
    click(first!);
    expect(screen.getByRole('status')).toHaveTextContent('Hit! 1 of 15.');
    expect(second).toHaveFocus();

    // The second target vanishes at 2.8 s as a miss; focus goes to the oldest target still there.
    advance(2000);
    expect(screen.getByRole('status')).toHaveTextContent('Missed! 1 of 20 misses.');
    expect(second).not.toBeInTheDocument();
    expect(targets()[0]).toHaveFocus();

    // Time is up at 3 s: the targets go, focus waits on the area, then the result takes it.
    advance(200);
    expect(targets()).toHaveLength(0);
    expect(screen.getByRole('group', { name: 'Target area' })).toHaveFocus();
    advance(500);
    expect(button('Continue Browsing')).toHaveFocus();
  });

  it('moves focus from the empty area to the next target that appears', () => {
    setup({ adDuration: 45 });
    click(button(/Reaction Speed/));
    const start = button('Start Game');
    act(() => start.focus());
    click(start);
    click(targets()[0]!);
    expect(targets()).toHaveLength(0);
    expect(screen.getByRole('group', { name: 'Target area' })).toHaveFocus();
    advance(800);
    expect(targets()[0]).toHaveFocus();
  });

  it('counts one hit for a held Enter key, not one per repeat', async () => {
    const user = userEvent.setup({ delay: null });
    setup({ adDuration: 45 });
    click(button(/Reaction Speed/));
    const start = button('Start Game');
    act(() => start.focus());
    click(start);
    advance(1600);
    expect(targets()).toHaveLength(3);
    expect(targets()[0]).toHaveFocus();
    // user-event waits on a timer after its actions: let the fake clock run it.
    const pressed = user.keyboard('{Enter>3/}');
    await act(() => vi.advanceTimersByTimeAsync(1));
    await pressed;
    expect(screen.getByText('1/15')).toBeInTheDocument();
    expect(targets()).toHaveLength(2);
    expect(targets()[0]).toHaveFocus();
  });

  it('leaves focus where the player took it out of the area', () => {
    setup({ adDuration: 45 });
    click(button(/Reaction Speed/));
    const start = button('Start Game');
    act(() => start.focus());
    click(start);
    const close = button('Close mini-game');
    act(() => close.focus());
    advance(800);
    expect(close).toHaveFocus();
  });
});

describe('MiniGameDialog focus between views', () => {
  it('moves focus to Start Game (described by the intro) and then to Continue Browsing, not the dialog itself', () => {
    setup({ timeLimitSeconds: 10 });
    const pick = button(/Quick Trivia/);
    act(() => pick.focus());
    click(pick);
    const start = button('Start Game');
    expect(start).toHaveFocus();
    expect(start).toHaveAccessibleDescription(/Answer 8 questions about technology, photography and social media\./);
    click(start);
    advance(10_000);
    const next = button('Continue Browsing');
    expect(next).toHaveFocus();
    expect(next).toHaveAccessibleDescription(/Game Complete! 0 points.*Good try!.*You earned 0 Eyevu points!/);
  });

  it("trivia: the answer's result is in the polite status, then the next question's first option takes focus and reads out the question", () => {
    const [q1, q2] = createTriviaGame({ seed: SEED, timeLimitSeconds: 15 }).questions;
    const option = (q: typeof q1, i: number) => button(`${'ABCD'[i]}. ${q!.options[i]}`);
    setup();
    click(button(/Quick Trivia/));
    click(button('Start Game'));
    // Start Game is gone: the first question's first option takes focus.
    expect(option(q1, 0)).toHaveFocus();
    expect(option(q1, 0)).toHaveAccessibleDescription(`Question 1/8 ${q1!.question}`);

    const right = option(q1, q1!.correctAnswer);
    act(() => right.focus());
    click(right);
    const status = screen.getByRole('status');
    expect(status).toHaveAttribute('aria-live', 'polite');
    expect(status).toHaveTextContent('Correct! +10 points');

    advance(2000);
    // The options were swapped for new ones: focus goes to the new first option, not the dialog.
    const first = option(q2, 0);
    expect(first).toHaveFocus();
    expect(screen.getByRole('dialog')).not.toHaveFocus();
    // The question is read once, as that option's description, and not also by the status.
    expect(first).toHaveAccessibleDescription(`Question 2/8 ${q2!.question}`);
    for (let i = 1; i < 4; i++) expect(option(q2, i)).not.toHaveAttribute('aria-describedby');
    expect(status).toHaveTextContent('');

    const wrong = (q2!.correctAnswer + 1) % 4;
    click(option(q2, wrong));
    expect(status).toHaveTextContent(`Incorrect. The answer was ${q2!.options[q2!.correctAnswer]}.`);
  });
});
