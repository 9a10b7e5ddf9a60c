import { contentDisposition, downloadFileName, safeFileName } from './download-name';

describe('download file names', () => {
  it('drops folders, control characters, quotes and leading dots', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('C:\\Users\\me\\IMG_1.JPG')).toBe('IMG_1.JPG');
    expect(safeFileName('a\r\nSet-Cookie: x.jpg')).toBe('aSet-Cookie x.jpg');
    expect(safeFileName('"quoted" \'name\'.png')).toBe('quoted name.png');
    expect(safeFileName('...hidden')).toBe('hidden');
    expect(safeFileName('..')).toBe('');
    expect(safeFileName(null)).toBe('');
    const long = safeFileName(`${'x'.repeat(300)}.jpeg`);
    expect(long).toHaveLength(180);
    expect(long.endsWith('.jpeg')).toBe(true);
  });

  it('keeps the uploaded name for the original and marks an edit', () => {
    expect(downloadFileName({ name: 'IMG_1', fileName: 'IMG_1.JPG', mime: 'image/jpeg' })).toBe('IMG_1.JPG');
    expect(downloadFileName({ name: 'IMG_1', fileName: 'IMG_1.jpeg', mime: 'image/jpeg' })).toBe('IMG_1.jpeg');
    expect(downloadFileName({ name: 'Shot', fileName: 'Shot.png', mime: 'image/png' })).toBe('Shot.png');
    expect(downloadFileName({ name: 'IMG_1', fileName: 'IMG_1.HEIC', mime: 'image/jpeg', edited: true })).toBe(
      'IMG_1 (edited).jpg',
    );
    expect(downloadFileName({ name: 'Coffee Cup', fileName: null, mime: 'image/webp' })).toBe('Coffee Cup.webp');
    expect(downloadFileName({ name: '../x', fileName: null, mime: 'image/jpeg' })).toBe('x.jpg');
    expect(downloadFileName({ name: '', fileName: '', mime: 'image/gif' })).toBe('photo.gif');
  });

  it('writes an RFC 6266 header with an ASCII fallback and the UTF-8 name', () => {
    expect(contentDisposition('photo.jpg')).toBe(`attachment; filename="photo.jpg"; filename*=UTF-8''photo.jpg`);
    expect(contentDisposition('Straße (1).jpg')).toBe(
      `attachment; filename="Stra_e (1).jpg"; filename*=UTF-8''Stra%C3%9Fe%20%281%29.jpg`,
    );
    expect(contentDisposition('a/b\\"c\r\n.jpg')).toBe(`attachment; filename="c.jpg"; filename*=UTF-8''c.jpg`);
    expect(contentDisposition('x"; filename="evil.exe')).toBe(
      `attachment; filename="x filename=evil.exe"; filename*=UTF-8''x%20filename%3Devil.exe`,
    );
    expect(contentDisposition('100%.jpg')).toBe(`attachment; filename="100_.jpg"; filename*=UTF-8''100%25.jpg`);
    // A lone surrogate (half an emoji) is written as U+FFFD, not thrown by encodeURIComponent.
    expect(contentDisposition('a\uD83D.jpg')).toBe(`attachment; filename="a_.jpg"; filename*=UTF-8''a%EF%BF%BD.jpg`);
  });

  it('cuts long names between characters, never between the two halves of one', () => {
    expect(safeFileName(`a${'😀'.repeat(100)}.jpg`)).toBe(`a${'😀'.repeat(87)}.jpg`);
  });
});
