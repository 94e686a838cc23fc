// BullMQ (npm "bullmq", on ioredis) processing jobs end to end against the server, run by
// BullMqClientTest with the server's port in CELLAR_TEST_PORT. BullMQ is built on Lua scripts
// (with cmsgpack), sorted sets, lists, hashes and streams; this checks that jobs complete with
// their results, that a failing job is retried and then failed, that a delayed job waits, and
// that QueueEvents (a blocking XREAD on the events stream) reports completions.
const { Queue, Worker, QueueEvents } = require('bullmq');

const connection = {
  host: '127.0.0.1',
  port: Number(process.env.CELLAR_TEST_PORT),
  maxRetriesPerRequest: null,
};

async function main() {
  const queue = new Queue('work', { connection });
  await queue.obliterate({ force: true });
  const events = new QueueEvents('work', { connection });
  await events.waitUntilReady();
  const completedEvents = [];
  events.on('completed', ({ jobId }) => completedEvents.push(jobId));

  const results = [];
  const worker = new Worker(
    'work',
    async (job) => {
      if (job.data.fail) {
        throw new Error('boom');
      }
      return job.data.x * 2;
    },
    { connection, concurrency: 4 },
  );
  worker.on('completed', (job, result) => results.push(result));

  const started = Date.now();
  for (let i = 0; i < 20; i++) {
    await queue.add('double', { x: i });
  }
  const bad = await queue.add('bad', { fail: true }, { attempts: 3, backoff: { type: 'fixed', delay: 50 } });
  const later = await queue.add('later', { x: 100 }, { delay: 700 });

  const deadline = Date.now() + 30000;
  while ((results.length < 21 || completedEvents.length < 21) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const laterJob = await queue.getJob(later.id);
  const badJob = await queue.getJob(bad.id);
  const counts = await queue.getJobCounts('completed', 'failed', 'delayed', 'waiting', 'active');
  const report = {
    results: results.slice().sort((a, b) => a - b),
    completedEvents: completedEvents.length,
    counts,
    badAttempts: badJob.attemptsMade,
    badReason: badJob.failedReason,
    laterWaited: laterJob.finishedOn - started >= 700,
  };
  console.log(JSON.stringify(report));
  await worker.close();
  await events.close();
  await queue.close();
  const expected = [];
  for (let i = 0; i < 20; i++) expected.push(2 * i);
  expected.push(200);
  const ok =
    JSON.stringify(report.results) === JSON.stringify(expected) &&
    report.completedEvents === 21 &&
    counts.completed === 21 &&
    counts.failed === 1 &&
    report.badAttempts === 3 &&
    report.badReason === 'boom' &&
    report.laterWaited;
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.error('FAILED', e);
  process.exit(2);
});
