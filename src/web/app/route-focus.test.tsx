// @vitest-environment jsdom
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useEffect, useState } from 'react';
import { Link, Route, Router, Switch, useLocation, useSearch } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { useRouteFocus } from './route-focus';

/** Shows what a screen shows once its answer or its chunk arrives (the test says when). */
let arrive = () => {};
function useArrival() {
  const [arrived, setArrived] = useState(false);
  useEffect(() => {
    arrive = () => setArrived(true);
  }, []);
  return arrived;
}

/** A screen whose heading comes a moment after it mounts (a chunk, a spinner first). */
function LateScreen() {
  const ready = useArrival();
  return <main>{ready ? <h1>Photo Organizer</h1> : <p role="status">Loading</p>}</main>;
}

/** The gallery's views by query: the duplicates album (with 'All photos') and a kept view switch. */
function Gallery() {
  const duplicates = useSearch() === 'album=duplicates';
  const [, navigate] = useLocation();
  return (
    <main>
      <h1>Photo Gallery</h1>
      <button type="button" onClick={() => navigate('/gallery?view=favorites', { replace: true })}>
        Favorites
      </button>
      {duplicates && <Link href="/gallery">All photos</Link>}
    </main>
  );
}

function Shell() {
  useRouteFocus();
  return (
    <>
      <header>
        <select aria-label="Theme" />
      </header>
      <Switch>
        <Route path="/">
          <main>
            <h1>Hi, Ann</h1>
            <Link href="/pricing">Upgrade</Link>
          </main>
        </Route>
        <Route path="/pricing">
          <main>
            <h1>Choose Your Plan</h1>
          </main>
        </Route>
        <Route path="/organizer" component={LateScreen} />
        <Route path="/gallery" component={Gallery} />
      </Switch>
      <nav aria-label="Main">
        <Link href="/">Home</Link>
        <Link href="/gallery">Gallery</Link>
        <Link href="/organizer">Organize</Link>
      </nav>
    </>
  );
}

function renderAt(path: string) {
  const location = memoryLocation({ path });
  render(
    <Router hook={location.hook}>
      <Shell />
    </Router>,
  );
  return location;
}

// jsdom has no scrolling: the screen's move to its top is seen as the call.
let scrolled: ReturnType<typeof vi.fn<(x: number, y: number) => void>>;
beforeEach(() => {
  scrolled = vi.fn<(x: number, y: number) => void>();
  vi.spyOn(window, 'scrollTo').mockImplementation(scrolled as (x: number, y: number) => void);
});
afterEach(() => vi.restoreAllMocks());

describe('moving between screens', () => {
  it('leaves focus alone on the first load', () => {
    renderAt('/');
    expect(document.body).toHaveFocus();
  });

  it("puts focus on the new screen's heading after a link in the old screen, outside the Tab order, at the top", async () => {
    const user = userEvent.setup();
    renderAt('/');
    await user.click(screen.getByRole('link', { name: 'Upgrade' }));
    const heading = screen.getByRole('heading', { name: 'Choose Your Plan' });
    expect(heading).toHaveFocus();
    expect(heading).toHaveAttribute('tabindex', '-1');
    expect(scrolled).toHaveBeenCalledWith(0, 0);
    // The next Tab goes on from the heading.
    await user.tab();
    expect(screen.getByRole('link', { name: 'Home' })).toHaveFocus();
  });

  it('moves focus off the pressed bottom-navigation tab to the heading, also when the heading comes later', async () => {
    const user = userEvent.setup();
    renderAt('/');
    await user.click(screen.getByRole('link', { name: 'Organize' }));
    expect(screen.getByRole('link', { name: 'Organize' })).toHaveFocus();
    await act(async () => arrive());
    expect(screen.getByRole('heading', { name: 'Photo Organizer' })).toHaveFocus();
  });

  it('does not take focus back once the user has moved on before the heading came', async () => {
    const user = userEvent.setup();
    renderAt('/');
    await user.click(screen.getByRole('link', { name: 'Organize' }));
    await user.click(screen.getByRole('combobox', { name: 'Theme' }));
    await act(async () => arrive());
    expect(screen.getByRole('heading', { name: 'Photo Organizer' })).not.toHaveFocus();
    expect(screen.getByRole('combobox', { name: 'Theme' })).toHaveFocus();
  });

  it('follows a heading replaced after the move (the login giving way to the dashboard)', async () => {
    function SignIn() {
      const signedIn = useArrival();
      return <main>{signedIn ? <h1 key="d">Hi, Ann</h1> : <h1 key="l">Welcome to Eyevu</h1>}</main>;
    }
    function App() {
      useRouteFocus();
      return (
        <Switch>
          <Route path="/login">
            <main>
              <h1>Welcome to Eyevu</h1>
              <Link href="/">Sign In</Link>
            </main>
          </Route>
          <Route path="/" component={SignIn} />
        </Switch>
      );
    }
    const user = userEvent.setup();
    const location = memoryLocation({ path: '/login' });
    render(
      <Router hook={location.hook}>
        <App />
      </Router>,
    );
    await user.click(screen.getByRole('link', { name: 'Sign In' }));
    expect(screen.getByRole('heading', { name: 'Welcome to Eyevu' })).toHaveFocus();
    await act(async () => arrive());
    expect(screen.getByRole('heading', { name: 'Hi, Ann' })).toHaveFocus();
  });

  it('on a change of the query alone, keeps focus on a control still there, and rescues it when it went', async () => {
    const user = userEvent.setup();
    renderAt('/gallery?album=duplicates');
    await user.click(screen.getByRole('link', { name: 'All photos' }));
    expect(screen.queryByRole('link', { name: 'All photos' })).toBeNull();
    expect(screen.getByRole('heading', { name: 'Photo Gallery' })).toHaveFocus();
    await user.click(screen.getByRole('button', { name: 'Favorites' }));
    expect(screen.getByRole('button', { name: 'Favorites' })).toHaveFocus();
    // The same screen: the user's place on the page is kept.
    expect(scrolled).not.toHaveBeenCalled();
  });

  it('keeps the place on the page after Back and Forward, where the browser stands, yet reads the heading', async () => {
    const user = userEvent.setup();
    window.history.replaceState(null, '', '/');
    // The browser's own history this time: Back and Forward are popstate events.
    render(
      <Router>
        <Shell />
      </Router>,
    );
    const wentBack = () => new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));

    await user.click(screen.getByRole('link', { name: 'Upgrade' }));
    expect(scrolled).toHaveBeenCalledTimes(1);
    const back = wentBack();
    window.history.back();
    await act(() => back);
    expect(screen.getByRole('heading', { name: 'Hi, Ann' })).toHaveFocus();
    const forward = wentBack();
    window.history.forward();
    await act(() => forward);
    expect(screen.getByRole('heading', { name: 'Choose Your Plan' })).toHaveFocus();
    expect(scrolled).toHaveBeenCalledTimes(1);

    // A move by a link after them starts at the top again.
    await user.click(screen.getByRole('link', { name: 'Gallery' }));
    expect(scrolled).toHaveBeenCalledTimes(2);
  });
});

describe('signing in or out where the address stays', () => {
  /** '/' is the login signed out and the dashboard signed in, as in the app. */
  function Root({ signedIn, onSignIn }: { signedIn: boolean | null; onSignIn: () => void }) {
    useRouteFocus(signedIn);
    if (signedIn === null) return <p role="status">Checking your session</p>;
    return signedIn ? (
      <main>
        <h1>Hi, Ann</h1>
      </main>
    ) : (
      <main>
        <h1>Welcome to Eyevu</h1>
        <button type="button" onClick={onSignIn}>
          Sign In
        </button>
      </main>
    );
  }
  function App({ initially }: { initially: boolean | null }) {
    const [signedIn, setSignedIn] = useState(initially);
    arrive = () => setSignedIn(false);
    return <Root signedIn={signedIn} onSignIn={() => setSignedIn(true)} />;
  }

  it("puts focus on the dashboard's heading after a sign-in on '/' (the login form went, and focus fell to the page)", async () => {
    const user = userEvent.setup();
    render(
      <Router hook={memoryLocation({ path: '/' }).hook}>
        <App initially={false} />
      </Router>,
    );
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(screen.getByRole('heading', { name: 'Hi, Ann' })).toHaveFocus();
    expect(scrolled).toHaveBeenCalledWith(0, 0);
  });

  it("leaves focus alone when the first load's session check answers", async () => {
    render(
      <Router hook={memoryLocation({ path: '/' }).hook}>
        <App initially={null} />
      </Router>,
    );
    await act(async () => arrive());
    expect(screen.getByRole('heading', { name: 'Welcome to Eyevu' })).toBeInTheDocument();
    expect(document.body).toHaveFocus();
    expect(scrolled).not.toHaveBeenCalled();
  });
});
