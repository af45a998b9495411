/**
 * Questions and answers over the IPC channel between a primary process and its HTTP processes
 * (node:cluster): `ask` sends a topic and waits, bounded, for the answer; `answer` serves a topic
 * on a channel. Answers travel as JSON (Node's IPC serialization), so they are plain data.
 */

/** The IPC end of a process: `process` in an HTTP process, a cluster `Worker` in the primary. */
export interface Channel {
  send?(message: unknown): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

interface Question {
  kassaAsk: string;
  id: number;
}

interface Answer {
  kassaAnswer: number;
  value?: unknown;
  error?: string;
}

const isQuestion = (message: unknown): message is Question => typeof (message as Question | null)?.kassaAsk === 'string';
const isAnswer = (message: unknown): message is Answer => typeof (message as Answer | null)?.kassaAnswer === 'number';

let lastId = 0;
const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
const listened = new WeakSet<Channel>();

function listenForAnswers(channel: Channel) {
  if (listened.has(channel)) return;
  listened.add(channel);
  channel.on('message', (message) => {
    if (!isAnswer(message)) return;
    const question = waiting.get(message.kassaAnswer);
    if (message.error === undefined) question?.resolve(message.value);
    else question?.reject(new Error(message.error));
  });
}

/** Asks the process at the other end of `channel`; rejects when no answer comes within `timeoutMs`. */
export function ask<T>(channel: Channel, topic: string, timeoutMs: number): Promise<T> {
  if (!channel.send) return Promise.reject(new Error('this process has no IPC channel'));
  listenForAnswers(channel);
  const id = ++lastId;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => settle(() => reject(new Error(`no answer to "${topic}" within ${timeoutMs} ms`))), timeoutMs);
    const settle = (done: () => void) => {
      clearTimeout(timer);
      waiting.delete(id);
      done();
    };
    waiting.set(id, { resolve: (value) => settle(() => resolve(value as T)), reject: (error) => settle(() => reject(error)) });
    channel.send!({ kassaAsk: topic, id } satisfies Question);
  });
}

/** Answers every question on `topic` that arrives on `channel`. */
export function answer(channel: Channel, topic: string, respond: () => unknown): void {
  channel.on('message', (message) => {
    if (!isQuestion(message) || message.kassaAsk !== topic) return;
    const reply = (answer: Answer) => {
      try {
        channel.send?.(answer);
      } catch {
        // The asking process went away meanwhile: nobody waits for this answer.
      }
    };
    Promise.resolve()
      .then(respond)
      .then(
        (value) => reply({ kassaAnswer: message.id, value }),
        (error: unknown) => reply({ kassaAnswer: message.id, error: String(error) }),
      );
  });
}
