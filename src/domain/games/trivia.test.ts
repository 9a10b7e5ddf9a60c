import {
  answerTrivia,
  createTriviaGame,
  currentTriviaQuestion,
  maxTriviaTimeBonus,
  optionLetter,
  TRIVIA_QUESTIONS,
  triviaNextDeadline,
  triviaOptionLook,
  triviaProgress,
  triviaQuestionLabel,
  type TriviaQuestion,
  type TriviaState,
  triviaTimeBonus,
  triviaTimeLeftSeconds,
  startTrivia,
  tickTrivia,
} from './trivia';

const T0 = 9_000_000;

function started(timeLimitSeconds = 45, seed = 5, pool?: readonly TriviaQuestion[]): TriviaState {
  return startTrivia(createTriviaGame({ seed, timeLimitSeconds, pool }), T0);
}

function correctIndex(s: TriviaState): number {
  const q = currentTriviaQuestion(s);
  if (!q) throw new Error('no question');
  return q.correctAnswer;
}

function wrongIndex(s: TriviaState): number {
  return (correctIndex(s) + 1) % 4;
}

/** Answers every question `gap` ms after it appears; returns the state after the last answer. */
function answerAll(state: TriviaState, gap: number, pick: (s: TriviaState) => number = correctIndex): TriviaState {
  let s = state;
  let at = T0;
  for (;;) {
    at += gap;
    s = answerTrivia(s, pick(s), at);
    if (s.index + 1 >= s.questions.length) return s;
    at = s.advanceAt ?? at;
    s = tickTrivia(s, at);
  }
}

describe('trivia pool', () => {
  it("has the spec's pool of 10 well-formed questions in the three categories", () => {
    // Spec §9: 'Trivia: pool of 10, 8 chosen at random' (12 made a question's odds 2/3, not 4/5).
    expect(TRIVIA_QUESTIONS).toHaveLength(10);
    for (const q of TRIVIA_QUESTIONS) {
      expect(q.options).toHaveLength(4);
      expect(new Set(q.options).size).toBe(4);
      expect(q.correctAnswer).toBeGreaterThanOrEqual(0);
      expect(q.correctAnswer).toBeLessThan(4);
      expect(['Technology', 'Photography', 'Social Media']).toContain(q.category);
    }
    expect(new Set(TRIVIA_QUESTIONS.map((q) => q.category)).size).toBe(3);
  });

  it('picks 8 distinct questions, deterministic per seed', () => {
    const game = createTriviaGame({ seed: 42, timeLimitSeconds: 30 });
    expect(game.phase).toBe('intro');
    expect(game.questions).toHaveLength(8);
    expect(new Set(game.questions).size).toBe(8);
    expect(createTriviaGame({ seed: 42, timeLimitSeconds: 30 }).questions).toEqual(game.questions);
  });
});

describe('trivia time bonus', () => {
  it('is round(left / limit x 10) only when more than half is left', () => {
    expect(triviaTimeBonus(30_000, 30_000)).toBe(10);
    expect(triviaTimeBonus(20_000, 30_000)).toBe(7);
    expect(triviaTimeBonus(15_001, 30_000)).toBe(5);
    expect(triviaTimeBonus(15_000, 30_000)).toBe(0);
    expect(triviaTimeBonus(0, 30_000)).toBe(0);
    expect(triviaTimeBonus(5, 0)).toBe(0);
  });

  it('is bounded by the 7 feedback pauses before the last answer', () => {
    expect(maxTriviaTimeBonus(45_000)).toBe(7); // 31/45
    expect(maxTriviaTimeBonus(30_000)).toBe(5); // 16/30
    expect(maxTriviaTimeBonus(20_000)).toBe(0); // 6/20
  });
});

describe('trivia play', () => {
  it('starts on question 1 with the full clock', () => {
    const intro = createTriviaGame({ seed: 1, timeLimitSeconds: 30 });
    expect(triviaTimeLeftSeconds(intro, T0)).toBe(30);
    expect(currentTriviaQuestion(intro)).toBeNull();
    expect(answerTrivia(intro, 0, T0)).toBe(intro);
    const s = startTrivia(intro, T0);
    expect(s.phase).toBe('question');
    expect(currentTriviaQuestion(s)).toBe(s.questions[0]);
    expect(triviaQuestionLabel(s)).toBe('Question 1/8');
    expect(triviaTimeLeftSeconds(s, T0 + 1500)).toBe(29);
    expect(triviaProgress(s)).toBe(0);
  });

  it('a correct answer scores 10 with feedback and locks the question', () => {
    const s0 = started();
    const s = answerTrivia(s0, correctIndex(s0), T0 + 1000);
    expect(s.selectedAnswer).toBe(correctIndex(s0));
    expect(s.score).toBe(10);
    expect(s.feedback).toBe('Correct! +10 points');
    expect(answerTrivia(s, wrongIndex(s0), T0 + 1100)).toBe(s);
    expect(answerTrivia(s, correctIndex(s0), T0 + 1100)).toBe(s);
    expect(triviaProgress(s)).toBe(1 / 8);
  });

  it('a wrong answer names the correct option', () => {
    const s0 = started();
    const q = currentTriviaQuestion(s0);
    if (!q) throw new Error('no question');
    const s = answerTrivia(s0, wrongIndex(s0), T0 + 1000);
    expect(s.score).toBe(0);
    expect(s.feedback).toBe(`Incorrect. The answer was ${q.options[q.correctAnswer]}.`);
    expect(triviaOptionLook(s, q.correctAnswer)).toBe('correct');
    expect(triviaOptionLook(s, wrongIndex(s0))).toBe('wrong');
    expect(triviaOptionLook(s0, 0)).toBe('idle');
  });

  it('ignores out-of-range answers', () => {
    const s0 = started();
    expect(answerTrivia(s0, 4, T0 + 1)).toBe(s0);
    expect(answerTrivia(s0, -1, T0 + 1)).toBe(s0);
    expect(answerTrivia(s0, 1.5, T0 + 1)).toBe(s0);
  });

  it('moves to the next question 2000 ms after answering, not before', () => {
    const s = answerTrivia(started(), 0, T0 + 1000);
    expect(triviaNextDeadline(s)).toBe(T0 + 3000);
    expect(tickTrivia(s, T0 + 2999)).toBe(s);
    const next = tickTrivia(s, T0 + 3000);
    expect(next.index).toBe(1);
    expect(next.selectedAnswer).toBeNull();
    expect(next.feedback).toBeNull();
    expect(triviaQuestionLabel(next)).toBe('Question 2/8');
  });

  it('ends after 8 questions, adding the time bonus once', () => {
    const last = answerAll(started(45), 500);
    // Last answer at 7 x 2500 + 500 = 18 000 ms: 27 s of 45 left -> round(6) = 6.
    expect(last.index).toBe(7);
    expect(last.timeBonus).toBe(6);
    expect(last.score).toBe(80);
    expect(last.phase).toBe('question');
    const done = tickTrivia(last, T0 + 20_000);
    expect(done.phase).toBe('complete');
    expect(done.result).toEqual({ score: 86, timedOut: false });
    expect(triviaProgress(done)).toBe(1);
    expect(triviaTimeLeftSeconds(done, T0 + 40_000)).toBe(25);
    expect(triviaNextDeadline(done)).toBeNull();
  });

  it('gives no bonus when half the time or less is left', () => {
    // Last answer at 7 x 3000 + 1000 = 22 000 ms: 8 s of 30 left.
    const last = answerAll(started(30), 1000, wrongIndex);
    expect(last.timeBonus).toBe(0);
    expect(tickTrivia(last, T0 + 60_000).result).toEqual({ score: 0, timedOut: false });
  });

  it('ends when the questions run out', () => {
    const pool = TRIVIA_QUESTIONS.slice(0, 3);
    const s0 = started(45, 1, pool);
    expect(s0.questions).toHaveLength(3);
    expect(triviaQuestionLabel(s0)).toBe('Question 1/3');
    const last = answerAll(s0, 100);
    const done = tickTrivia(last, last.advanceAt ?? 0);
    expect(done.phase).toBe('complete');
    expect(done.result?.score).toBe(30 + triviaTimeBonus(45_000 - 4300, 45_000));
  });

  it('completes at once with an empty pool', () => {
    const s = started(30, 1, []);
    expect(s.phase).toBe('complete');
    expect(s.result).toEqual({ score: 0, timedOut: false });
    expect(currentTriviaQuestion(s)).toBeNull();
  });

  it('ends when the clock runs out, keeping the points so far', () => {
    const s = answerTrivia(started(15), correctIndex(started(15)), T0 + 1000);
    const next = tickTrivia(s, T0 + 3000);
    expect(tickTrivia(next, T0 + 14_999).phase).toBe('question');
    const done = tickTrivia(next, T0 + 15_000);
    expect(done.phase).toBe('complete');
    expect(done.result).toEqual({ score: 10, timedOut: true });
    expect(answerTrivia(done, 0, T0 + 15_001)).toBe(done);
    expect(triviaTimeLeftSeconds(done, T0 + 20_000)).toBe(0);
  });

  it('letters options A-D', () => {
    expect([0, 1, 2, 3].map(optionLetter)).toEqual(['A', 'B', 'C', 'D']);
  });
});
