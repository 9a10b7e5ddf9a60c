import {
  createMemoryGame,
  flipCard,
  MEMORY_PAIRS,
  memoryNextDeadline,
  type MemoryState,
  startMemory,
  tickMemory,
} from '@domain/games/memory';
import type { GameOutcome } from '@domain/games/game-outcome';
import { useReducer } from 'react';
import { Emoji } from '../../components/ui/emoji';
import { cn } from '../../lib/cn';
import { useSettlingPresses } from '../../lib/settling-presses';
import { GameAnnouncer, GameIntro, StatPill } from './game-intro';
import { useDeadline, useNow, useReportOnce } from './use-game-clock';

type Action =
  | { type: 'start'; now: number; endsBy?: number }
  | { type: 'flip'; id: number; now: number }
  | { type: 'tick'; now: number };

interface ViewState {
  game: MemoryState;
  message: string;
}

function describe(before: MemoryState, after: MemoryState, fallback: string): string {
  if (after.phase === 'complete') return `All pairs found! Score ${after.score}.`;
  if (after.matches > before.matches) return `Match! +10 points. ${after.matches} of ${MEMORY_PAIRS} pairs found.`;
  if (after.timer?.kind === 'flip-back' && before.timer?.kind !== 'flip-back') return 'Not a match.';
  return fallback;
}

function reducer(state: ViewState, action: Action): ViewState {
  const game =
    action.type === 'start'
      ? startMemory(state.game, action.now, action.endsBy)
      : action.type === 'flip'
        ? flipCard(state.game, action.id, action.now)
        : tickMemory(state.game, action.now);
  if (game === state.game) return state;
  return { game, message: describe(state.game, game, action.type === 'start' ? '' : state.message) };
}

export interface GameProps {
  seed: number;
  timeLimitSeconds?: number;
  /** The hosting ad's end (ms since epoch): play ends by then, and an intro still showing gives up. */
  endsAt?: number;
  onComplete: (outcome: GameOutcome) => void;
  /** The intro was still showing at `endsAt`: the game was never played. */
  onExpire?: () => void;
}

/** Memory Match view; the rules live in src/domain/games/memory.ts. */
export function MemoryGame({ seed, timeLimitSeconds, endsAt, onComplete, onExpire }: GameProps) {
  const [{ game, message }, dispatch] = useReducer(reducer, undefined, () => ({
    game: createMemoryGame({ seed, timeLimitSeconds }),
    message: '',
  }));
  useDeadline(memoryNextDeadline(game), (now) => dispatch({ type: 'tick', now }));
  useReportOnce(game.result, onComplete);
  // In an ad break the board is timed (the ad's end), as trivia and reaction are: show what is left,
  // or the game ends with no warning. The clock read before the first tick is at most the limit.
  const limitMs = game.timeLimitMs;
  const now = useNow(game.phase === 'playing' && limitMs !== null);
  const secondsLeft =
    limitMs === null || game.startedAt === null
      ? null
      : Math.min(Math.ceil(limitMs / 1000), Math.ceil(Math.max(0, game.startedAt + limitMs - now) / 1000));

  // The board replaces Start Game: a double click on Start must not flip the card under it.
  const settle = useSettlingPresses(game.phase === 'intro');

  if (game.phase === 'intro') {
    return (
      <GameIntro
        title="Memory Match"
        icon="🧠"
        endsAt={endsAt}
        onExpire={onExpire}
        onStart={() => dispatch({ type: 'start', now: Date.now(), endsBy: endsAt })}
      >
        <p>Flip two cards at a time to find the {MEMORY_PAIRS} matching pairs of emojis.</p>
        <p>Each match scores 10 points.</p>
      </GameIntro>
    );
  }

  return (
    <div className="flex flex-col gap-3" onClickCapture={settle}>
      <div className="flex justify-center gap-2">
        <StatPill label="Score" value={game.score} />
        <StatPill label="Pairs" value={`${game.matches}/${MEMORY_PAIRS}`} />
        <StatPill label="Moves" value={game.moves} />
        {secondsLeft !== null && <StatPill label="Time" value={`${secondsLeft}s`} />}
      </div>
      <ul className="grid grid-cols-4 gap-2" aria-label="Memory cards">
        {game.cards.map((card, i) => {
          const faceUp = card.isFlipped || card.isMatched;
          return (
            <li key={card.id}>
              <button
                type="button"
                aria-label={
                  faceUp ? `Card ${i + 1}: ${card.emoji}${card.isMatched ? ', matched' : ''}` : `Card ${i + 1}`
                }
                // Not `disabled`: Chrome moves focus off a disabled button to the page, so a keyboard
                // player would lose their place at every flip. The rules refuse the press instead.
                aria-disabled={faceUp || game.phase !== 'playing' || undefined}
                onClick={() => dispatch({ type: 'flip', id: card.id, now: Date.now() })}
                className={cn(
                  'grid aspect-square w-full min-h-11 place-items-center rounded-xl text-3xl transition',
                  card.isMatched
                    ? 'bg-success/15 ring-2 ring-success'
                    : faceUp
                      ? 'bg-primary-soft'
                      : 'bg-primary text-primary-fg hover:opacity-90',
                )}
              >
                {faceUp ? <Emoji emoji={card.emoji} className="size-9" /> : <span aria-hidden>?</span>}
              </button>
            </li>
          );
        })}
      </ul>
      <GameAnnouncer message={message} />
    </div>
  );
}
