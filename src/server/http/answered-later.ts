import type { FastifyReply } from 'fastify';
import type { AfterAnswer } from '../context';
import type { ServerActivity } from '../lib/server-activity';

/**
 * Work held until this request has been answered (or its client has gone: a response's 'close'
 * comes after its last byte was handed to the connection), and then until the server is quiet
 * (`activity`): the client's next requests (an uploader's gallery refresh) come first. Work
 * deferred later waits only for that.
 */
export function answeredLater(reply: FastifyReply, activity: ServerActivity): AfterAnswer {
  let answered = false;
  const waiting: Array<Parameters<AfterAnswer>[0]> = [];
  reply.raw.once('close', () => {
    answered = true;
    for (const work of waiting.splice(0)) activity.whenQuiet(work);
  });
  return (work) => (answered ? activity.whenQuiet(work) : void waiting.push(work));
}
