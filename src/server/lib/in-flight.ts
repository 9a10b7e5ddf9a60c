/** A count of things under way in this process (uploads), for background work that waits while there are any. */
export interface InFlight {
  readonly count: number;
  /** Counts one in; the function it answers counts it out (once, however often it is called). */
  enter(): () => void;
}

export function createInFlight(): InFlight {
  let count = 0;
  return {
    get count() {
      return count;
    },
    enter() {
      count += 1;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        count -= 1;
      };
    },
  };
}
