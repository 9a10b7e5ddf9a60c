// @vitest-environment jsdom
import type { Photo, UploadResponse, UploadResult } from '@contract/photos';
import type { QueryClient } from '@tanstack/react-query';
import { act, createEvent, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { dismissAllToasts } from '../../lib/toast';
import { galleryQueryClient, renderGallery as renderGalleryScreen, stubResizeObserver } from './test-gallery';
import { UPLOAD_STALL_MS } from './upload-photos';

/**
 * The gallery's upload as the user meets it: the labelled file input, a progress bar per
 * selection, one toast for all of it naming each refusal with its files, the rest of a selection
 * kept back once the plan's limit or the connection refused it, and the page asking before it is
 * left mid-upload. The server is a fake XMLHttpRequest answered by each test.
 */
class FakeXhr {
  static sent: FakeXhr[] = [];
  upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = {
    onprogress: null,
  };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  onprogress: (() => void) | null = null;
  withCredentials = false;
  aborted = false;
  status = 0;
  responseText = '';
  files: File[] = [];
  open() {}
  send(form: FormData) {
    this.files = form.getAll('photos') as File[];
    FakeXhr.sent.push(this);
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    act(() => this.onload?.());
  }
  fail() {
    act(() => this.onerror?.());
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  /** `loaded` of `total` bytes sent. */
  sending(loaded: number, total: number) {
    act(() => this.upload.onprogress?.({ lengthComputable: true, loaded, total }));
  }
  /** The server's answer: the first `ok` files stored, the others refused as `refusal` says. */
  answerResults(
    ok: number,
    refusal: (f: File) => { status: number; message: string },
    reward: UploadResponse['reward'] = null,
  ) {
    const results: UploadResult[] = this.files.map((f, i) =>
      i < ok
        ? { ok: true, fileName: f.name, photo: { id: f.name } as Photo }
        : { ok: false, fileName: f.name, ...refusal(f) },
    );
    const uploaded = Math.min(ok, this.files.length);
    const failed = results.length - uploaded;
    const body: UploadResponse = { message: 'server summary', uploaded, failed, results, reward };
    this.answer(uploaded > 0 ? 201 : (results.find((r) => !r.ok) as { status: number }).status, body);
  }
}

const FREE_LIMIT =
  'The Free plan holds up to 50 photos (the demo photos do not count). Upgrade your plan to upload more.';
const UNSUPPORTED = 'This file is not a supported image. Use JPEG, PNG, WebP, AVIF, GIF, TIFF or HEIC.';

const jpegs = (n: number, prefix = 'IMG_') =>
  Array.from({ length: n }, (_, i) => new File(['x'.repeat(10)], `${prefix}${i + 1}.jpg`, { type: 'image/jpeg' }));

beforeEach(() => {
  FakeXhr.sent = [];
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  stubResizeObserver();
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(JSON.stringify({ items: [], nextCursor: null, total: 0 }))),
  );
});
afterEach(() => {
  act(() => dismissAllToasts());
  vi.unstubAllGlobals();
});

/** The gallery beside the shell's main navigation (where focus may go). */
const renderGallery = (qc?: QueryClient) => renderGalleryScreen({ qc, beside: <nav aria-label="Main" /> });

const choose = async (files: File[]) => {
  const user = userEvent.setup();
  await user.upload(screen.getByLabelText('Choose photos to upload'), files);
};
const messageToast = () => screen.getAllByTestId('toast')[0]!;

describe('uploading from the gallery', () => {
  it('offers HEIC files in the picker, which browsers without HEIC among their image types grey out', () => {
    renderGallery();
    const accept = screen.getByLabelText('Choose photos to upload').getAttribute('accept')!.split(',');
    expect(accept).toEqual(expect.arrayContaining(['image/*', '.heic', '.heif']));
  });

  it('has one Tab stop for uploading: the visible Upload button, not the hidden file input too', async () => {
    const user = userEvent.setup();
    renderGallery();
    const input = screen.getByLabelText('Choose photos to upload');
    const upload = screen.getByRole('button', { name: 'Upload' });
    for (let i = 0; i < 10 && document.activeElement !== upload; i++) {
      await user.tab();
      expect(input).not.toHaveFocus();
    }
    expect(upload).toHaveFocus();
  });

  it('uploads files dropped anywhere on the screen once, beside its content too, instead of the browser opening them', async () => {
    renderGallery();
    const drop = (target: Element, files: File[]) => {
      const event = createEvent.drop(target, { dataTransfer: { files, types: ['Files'] } });
      fireEvent(target, event);
      return event;
    };
    expect(drop(screen.getByRole('navigation', { name: 'Main' }), jpegs(2)).defaultPrevented).toBe(true);
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    expect(FakeXhr.sent[0]!.files).toHaveLength(2);

    drop(screen.getByRole('main'), jpegs(1, 'dropped'));
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(2));
    expect(FakeXhr.sent[1]!.files.map((f) => f.name)).toEqual(['dropped1.jpg']);
    FakeXhr.sent[0]!.answerResults(2, () => ({ status: 500, message: '' }));
    FakeXhr.sent[1]!.answerResults(1, () => ({ status: 500, message: '' }));
    await waitFor(() => expect(screen.queryByRole('progressbar')).toBeNull());
    expect(FakeXhr.sent).toHaveLength(2);
  });

  it('says each reason a file was refused, with its files, when none of the selection arrived', async () => {
    renderGallery();
    await choose([...jpegs(1, 'notes'), ...jpegs(1, 'huge'), ...jpegs(1, 'readme')]);
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    FakeXhr.sent[0]!.answerResults(0, (f) =>
      f.name.startsWith('huge')
        ? { status: 413, message: 'This file is larger than the 50 MB upload limit.' }
        : { status: 415, message: UNSUPPORTED },
    );
    const t = await screen.findByTestId('toast');
    expect(t).toHaveTextContent('Upload failed');
    expect(t).toHaveTextContent(`notes1.jpg, readme1.jpg: ${UNSUPPORTED}`);
    expect(t).toHaveTextContent('huge1.jpg: This file is larger than the 50 MB upload limit.');
  });

  it('stops at the Free plan limit: the rest is not sent, and the limit is said once for every file it kept out', async () => {
    renderGallery();
    await choose(jpegs(45));
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    expect(FakeXhr.sent[0]!.files).toHaveLength(20);
    FakeXhr.sent[0]!.answerResults(5, () => ({ status: 403, message: FREE_LIMIT }));

    await waitFor(() => expect(screen.queryByRole('list', { name: 'Uploads in progress' })).toBeNull());
    expect(FakeXhr.sent).toHaveLength(1);
    const t = messageToast();
    expect(t).toHaveTextContent('5 photos uploaded!');
    // The 15 refused and the 25 never sent: named once with the reason.
    expect(t).toHaveTextContent(`IMG_6.jpg, IMG_7.jpg, IMG_8.jpg and 37 more: ${FREE_LIMIT}`);
    expect(t.textContent!.split(FREE_LIMIT)).toHaveLength(2);
  });

  it('counts the whole selection in one toast after several batches, the failures of the first included', async () => {
    renderGallery();
    await choose([...jpegs(19), ...jpegs(1, 'broken'), ...jpegs(5, 'later')]);
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    FakeXhr.sent[0]!.answerResults(19, () => ({ status: 422, message: 'This photo could not be read.' }), {
      points: 95,
      rewardedPhotos: 19,
      message: '19 photos uploaded!',
      newAchievements: [],
    });
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(2));
    expect(FakeXhr.sent[1]!.files.map((f) => f.name)).toEqual(jpegs(5, 'later').map((f) => f.name));
    FakeXhr.sent[1]!.answerResults(5, () => ({ status: 500, message: '' }), {
      points: 25,
      rewardedPhotos: 5,
      message: '5 photos uploaded!',
      newAchievements: [],
    });

    await waitFor(() => expect(messageToast()).toHaveTextContent('24 photos uploaded!'));
    expect(messageToast()).toHaveTextContent('broken1.jpg: This photo could not be read.');
    expect(screen.getAllByTestId('toast')).toHaveLength(1);
    // The points of the whole selection, as one popup.
    expect(screen.getByTestId('reward-popup')).toHaveTextContent('+120 pts24 photos uploaded!');
  });

  it('stops after a lost connection and says so, keeping what arrived before it', async () => {
    renderGallery();
    await choose(jpegs(50));
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    FakeXhr.sent[0]!.answerResults(20, () => ({ status: 500, message: '' }));
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(2));
    FakeXhr.sent[1]!.fail();

    await waitFor(() => expect(messageToast()).toHaveTextContent('20 photos uploaded!'));
    expect(FakeXhr.sent).toHaveLength(2);
    expect(messageToast()).toHaveTextContent(
      'IMG_21.jpg, IMG_22.jpg, IMG_23.jpg and 27 more: Network error. Please try again.',
    );
  });

  it.each([
    [
      502,
      '<html><body><center><h1>502 Bad Gateway</h1></center></body></html>',
      'The upload could not be completed. Please try again.',
    ],
    [
      413,
      '<html><head><title>413 Request Entity Too Large</title></head></html>',
      'These photos are too large to send at once. Please try fewer at a time.',
    ],
  ])(
    "a proxy's %i page in front of the server is said in words, never as markup or a status code",
    async (status, page, said) => {
      renderGallery();
      await choose(jpegs(2));
      await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
      const xhr = FakeXhr.sent[0]!;
      xhr.status = status;
      xhr.responseText = page;
      act(() => xhr.onload?.());

      await waitFor(() => expect(messageToast()).toHaveTextContent('Upload failed'));
      expect(messageToast()).toHaveTextContent(`IMG_1.jpg, IMG_2.jpg: ${said}`);
      expect(messageToast()).not.toHaveTextContent(String(status));
    },
  );

  it('stops when the account signed in changes in this tab mid-selection, sending nothing to the next one and telling it nothing', async () => {
    const qc = galleryQueryClient();
    const account = (id: string) => ({ user: { id, email: `${id}@example.com`, firstName: id, lastName: 'User' } });
    qc.setQueryData(['/api/auth/user'], account('ann'));
    renderGallery(qc);
    await choose(jpegs(45, 'ann-'));
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    // Ann signs out and Bob signs in while her first request is on its way (the upload goes on
    // across screens, the login screen included).
    act(() => qc.setQueryData(['/api/auth/user'], null));
    act(() => qc.setQueryData(['/api/auth/user'], account('bob')));
    FakeXhr.sent[0]!.answerResults(20, () => ({ status: 500, message: '' }));

    await waitFor(() => expect(screen.queryByRole('list', { name: 'Uploads in progress' })).toBeNull());
    expect(FakeXhr.sent).toHaveLength(1);
    // Nothing about Ann's photos (their names, her points) is shown to Bob.
    expect(screen.queryByTestId('toast')).toBeNull();
    expect(screen.queryByTestId('reward-popup')).toBeNull();
  });

  it("has the Organizer ask its analysis count and albums again after an upload (it kept 'All photos analyzed!' over the new photos)", async () => {
    const qc = galleryQueryClient();
    // What the Organizer read before the upload: never stale by time (staleTime: Infinity).
    qc.setQueryData(['/api/photos/analysis-status'], { total: 10, analyzed: 10, pending: 0 });
    qc.setQueryData(['/api/albums'], []);
    renderGallery(qc);
    await choose(jpegs(2));
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    FakeXhr.sent[0]!.answerResults(2, () => ({ status: 500, message: '' }));
    await waitFor(() => expect(messageToast()).toHaveTextContent('2 photos uploaded!'));
    // The new photos are queued for analysis, whose results make smart albums.
    expect(qc.getQueryState(['/api/photos/analysis-status'])?.isInvalidated).toBe(true);
    expect(qc.getQueryState(['/api/albums'])?.isInvalidated).toBe(true);
  });

  it('announces the upload, keeps its progress across leaving the screen, and asks before the page is left meanwhile', async () => {
    const first = renderGallery();
    await choose(jpegs(3));
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    expect(screen.getByText('Uploading 3 photos', { selector: '[role=status]' })).toBeInTheDocument();
    act(() => FakeXhr.sent[0]!.upload.onprogress?.({ lengthComputable: true, loaded: 1, total: 2 }));
    expect(screen.getByRole('progressbar', { name: 'Uploading 3 photos' })).toHaveAttribute('aria-valuenow', '50');

    const leaving = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(leaving);
    expect(leaving.defaultPrevented).toBe(true);

    // Another screen and back: the upload went on, and its bar is there again.
    first.unmount();
    renderGallery();
    expect(screen.getByRole('progressbar', { name: 'Uploading 3 photos' })).toHaveAttribute('aria-valuenow', '50');

    FakeXhr.sent[0]!.answerResults(3, () => ({ status: 500, message: '' }));
    await waitFor(() => expect(messageToast()).toHaveTextContent('3 photos uploaded!'));
    expect(screen.queryByRole('progressbar')).toBeNull();
    const after = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(after);
    expect(after.defaultPrevented).toBe(false);
    expect(within(document.body).queryByText('Uploading 3 photos', { selector: '[role=status]' })).toBeNull();
  });
});

describe('an upload whose connection goes silent', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  const advance = async (ms: number) => {
    await act(async () => vi.advanceTimersByTimeAsync(ms));
  };
  /** Chosen without userEvent, whose own delays wait on the faked clock. */
  const chooseNow = async (files: File[]) => {
    fireEvent.change(screen.getByLabelText('Choose photos to upload'), { target: { files } });
    await advance(0);
  };

  it('is given up after UPLOAD_STALL_MS without a byte sent or answered, and says the connection was lost', async () => {
    renderGallery();
    await chooseNow(jpegs(25));
    expect(FakeXhr.sent).toHaveLength(1);
    const xhr = FakeXhr.sent[0]!;
    xhr.sending(100, 250);
    await advance(UPLOAD_STALL_MS - 1000);
    expect(xhr.aborted).toBe(false);
    expect(screen.getByRole('progressbar', { name: 'Uploading 25 photos' })).toBeInTheDocument();

    await advance(1000);
    await advance(200);
    expect(xhr.aborted).toBe(true);
    expect(messageToast()).toHaveTextContent('Upload failed');
    expect(messageToast()).toHaveTextContent(
      'IMG_1.jpg, IMG_2.jpg, IMG_3.jpg and 22 more: Network error. Please try again.',
    );
    expect(screen.queryByRole('progressbar', { name: 'Uploading 25 photos' })).toBeNull();
    // The rest of the selection is not sent into a dead connection.
    expect(FakeXhr.sent).toHaveLength(1);
  });

  it('is not cut while its bytes keep moving, however long it takes', async () => {
    renderGallery();
    await chooseNow(jpegs(2));
    const xhr = FakeXhr.sent[0]!;
    // A slow link: a byte now and then, ten times the bound in all.
    for (let t = 0; t < 10; t++) {
      await advance(UPLOAD_STALL_MS - 1000);
      xhr.sending(t + 1, 20);
    }
    expect(xhr.aborted).toBe(false);
    xhr.answerResults(2, () => ({ status: 500, message: '' }));
    await advance(200);
    expect(messageToast()).toHaveTextContent('2 photos uploaded!');
    await advance(UPLOAD_STALL_MS * 2);
    expect(xhr.aborted).toBe(false);
  });
});
