import {
  type ArenaSize,
  createReactionGame,
  hitTarget,
  REACTION_HITS_TO_END,
  REACTION_MISSES_TO_END,
  REACTION_TARGET_SIZE_PX,
  reactionNextDeadline,
  type ReactionState,
  startReaction,
  tickReaction,
} from '@domain/games/reaction';
import { type FocusEvent, useLayoutEffect, useReducer, useRef } from 'react';
import { useSettlingPresses } from '../../lib/settling-presses';
import { GameAnnouncer, GameIntro, StatPill } from './game-intro';
import type { GameProps } from './memory-game';
import { useDeadline, useNow, useReportOnce } from './use-game-clock';

/** Used when the arena cannot be measured (tests, hidden layout). */
const ARENA_HEIGHT = 320;
export const FALLBACK_ARENA: ArenaSize = { width: 300, height: ARENA_HEIGHT };

type Action =
  | { type: 'start'; arena: ArenaSize; now: number; endsBy?: number }
  | { type: 'hit'; id: number; now: number }
  | { type: 'tick'; now: number };

interface ViewState {
  seed: number;
  timeLimitSeconds: number;
  game: ReactionState | null;
  message: string;
}

function describe(before: ReactionState | null, after: ReactionState, fallback: string): string {
  if (after.phase === 'complete') return `Game over! Score ${after.score}.`;
  if (after.phase === 'ending' && before?.phase !== 'ending') {
    if (after.endReason === 'hits') return `${REACTION_HITS_TO_END} hits! Well done.`;
    if (after.endReason === 'misses') return `${REACTION_MISSES_TO_END} misses. Game over.`;
    return "Time's up!";
  }
  if (before && after.hits > before.hits) return `Hit! ${after.hits} of ${REACTION_HITS_TO_END}.`;
  if (before && after.misses > before.misses) return `Missed! ${after.misses} of ${REACTION_MISSES_TO_END} misses.`;
  return fallback;
}

function reducer(state: ViewState, action: Action): ViewState {
  let game: ReactionState | null;
  if (action.type === 'start') {
    if (state.game) return state;
    game = startReaction(
      createReactionGame({ seed: state.seed, arena: action.arena, timeLimitSeconds: state.timeLimitSeconds }),
      action.now,
      action.endsBy,
    );
  } else {
    if (!state.game) return state;
    game = action.type === 'hit' ? hitTarget(state.game, action.id, action.now) : tickReaction(state.game, action.now);
  }
  if (game === state.game) return state;
  return { ...state, game, message: describe(state.game, game, state.message) };
}

/** Reaction Speed view; the rules live in src/domain/games/reaction.ts. */
export function ReactionGame({ seed, timeLimitSeconds = 30, endsAt, onComplete, onExpire }: GameProps) {
  const [{ game, message }, dispatch] = useReducer(reducer, undefined, () => ({
    seed,
    timeLimitSeconds,
    game: null,
    message: '',
  }));
  const rootRef = useRef<HTMLDivElement>(null);
  const arenaRef = useRef<HTMLDivElement>(null);
  // Whether the player's focus is in the play area (set by Start). A hit or vanished target takes its
  // focus with it (the browser sends it to the page, Radix then to the dialog's top), and a keyboard
  // player would Tab from there to every next target: focus moves on to the oldest target left, or
  // waits on the area for the next one.
  const focusInArena = useRef(false);
  const targets = game?.targets;
  useLayoutEffect(() => {
    const arena = arenaRef.current;
    if (!focusInArena.current || !arena || !targets) return;
    // Only focus that was lost (to the page) or waits on the area moves; a live target keeps it.
    const active = document.activeElement;
    if (active && active !== document.body && active !== arena) return;
    (arena.querySelector<HTMLElement>('button') ?? arena).focus();
  }, [targets]);
  const leaveArena = (event: FocusEvent) => {
    // Null: the focused target was removed (or the window lost focus); the player is still here.
    const to = event.relatedTarget;
    if (to instanceof Node && !arenaRef.current?.contains(to)) focusInArena.current = false;
  };
  useDeadline(game ? reactionNextDeadline(game) : null, (now) => dispatch({ type: 'tick', now }));
  useReportOnce(game?.result ?? null, onComplete);
  const now = useNow(game?.phase === 'playing');

  const start = () => {
    // The arena is hidden during the intro: measure the (visible) container; the height is fixed.
    const width = rootRef.current?.getBoundingClientRect().width ?? 0;
    const arena = width > 0 ? { width, height: ARENA_HEIGHT } : FALLBACK_ARENA;
    focusInArena.current = true;
    dispatch({ type: 'start', arena, now: Date.now(), endsBy: endsAt });
  };

  // The first target replaces Start Game: a double click on Start must not land on it as a miss or a hit.
  const settle = useSettlingPresses(game === null);

  const secondsLeft = game?.startedAt
    ? Math.max(
        0,
        Math.ceil(
          (game.startedAt + game.timeLimitMs - (game.phase === 'playing' ? now : (game.endedAt ?? now))) / 1000,
        ),
      )
    : timeLimitSeconds;

  return (
    <div ref={rootRef} className="flex flex-col gap-3" onClickCapture={settle}>
      {game ? (
        <div className="flex justify-center gap-2">
          <StatPill label="Score" value={game.score} />
          <StatPill label="Hits" value={`${game.hits}/${REACTION_HITS_TO_END}`} />
          <StatPill label="Misses" value={game.misses} />
          <StatPill label="Time" value={`${secondsLeft}s`} />
        </div>
      ) : (
        <GameIntro title="Reaction Speed" icon="🎯" endsAt={endsAt} onExpire={onExpire} onStart={start}>
          <p>Tap each target before it vanishes. Targets appear faster as time goes on.</p>
          <p>
            10 points per hit plus an accuracy bonus. The game ends at {REACTION_HITS_TO_END} hits or{' '}
            {REACTION_MISSES_TO_END} misses.
          </p>
        </GameIntro>
      )}
      <div
        ref={arenaRef}
        aria-label="Target area"
        role="group"
        tabIndex={-1}
        onFocus={() => (focusInArena.current = true)}
        onBlur={leaveArena}
        hidden={!game}
        className="relative w-full overflow-hidden rounded-xl bg-surface-2"
        style={{ height: ARENA_HEIGHT }}
      >
        {game?.targets.map((t) => (
          <button
            key={t.id}
            type="button"
            aria-label="Target"
            onClick={() => dispatch({ type: 'hit', id: t.id, now: Date.now() })}
            // A held key repeats: one press, one hit.
            onKeyDown={(event) => event.repeat && event.preventDefault()}
            className="absolute rounded-full bg-danger ring-4 ring-danger/30 active:scale-95"
            style={{ left: t.x, top: t.y, width: REACTION_TARGET_SIZE_PX, height: REACTION_TARGET_SIZE_PX }}
          />
        ))}
      </div>
      {game && <GameAnnouncer message={message} />}
    </div>
  );
}
