/** The P3 ceiling: Fastify with one route returning fixed bytes from memory. argv: file contentType port */
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';

const [file, contentType, port] = process.argv.slice(2);
const body = readFileSync(file!);
const app = Fastify({ logger: false });
app.get('/api/photos', async (_request, reply) => reply.type(contentType!).send(body));
await app.listen({ port: Number(port), host: '127.0.0.1' });
console.log('ready');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
