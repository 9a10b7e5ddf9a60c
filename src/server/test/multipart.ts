import type { FastifyInstance } from 'fastify';

/** A `multipart/form-data` body for `POST /api/photos` (field `photos`, one part per file). */
export function photoUpload(files: Array<{ name: string; bytes: Buffer; type?: string }>) {
  const boundary = '----eyevu' + Math.random().toString(16).slice(2);
  const chunks: Buffer[] = [];
  for (const f of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="photos"; filename="${f.name}"\r\nContent-Type: ${f.type ?? 'image/jpeg'}\r\n\r\n`,
      ),
      f.bytes,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** `POST /api/photos` with these files, as the user whose session cookie this is. */
export function postPhotos(
  app: FastifyInstance,
  cookie: string,
  files: Array<{ name: string; bytes: Buffer; type?: string }>,
) {
  const body = photoUpload(files);
  return app.inject({
    method: 'POST',
    url: '/api/photos',
    headers: { ...body.headers, cookie },
    payload: body.payload,
  });
}
