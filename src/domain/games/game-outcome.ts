/** What every mini-game reports when its phase becomes 'complete'. */
export interface GameOutcome {
  score: number;
  /** True when the time limit ended the game before its own end condition. */
  timedOut: boolean;
}
