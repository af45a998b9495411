/**
 * Background work on a timer, one run at a time: a run that outlasts the interval delays
 * the next instead of overlapping it. Stopping waits for the run under way.
 */
export function runEvery(intervalMs: number, task: () => Promise<unknown>, onError: (error: unknown) => void): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    // A run's failure, thrown or rejected, goes to onError: a timer's callback never ends the process.
    running = running.then(task).catch(onError);
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
