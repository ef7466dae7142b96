/** One 100 MiB multipart upload to a fresh mock: time, checksum, and how far it raised peak RSS. */
import { TOKEN } from '../lib/endpoints.mjs';
import { peakRssMiB, resetPeak, rssMiB } from '../lib/processes.mjs';
import { settle } from '../lib/servers.mjs';
import { uploadFile } from '../lib/upload.mjs';

export async function uploadPhase(ctx) {
  const size = 100 * 1024 * 1024;
  ctx.log('upload: 100 MiB multipart upload');
  const mock = await ctx.servers.startMock({ name: 'mock-upload' });
  const url = `${mock.url}/sessions/sess_demo/files`;
  const warm = await uploadFile(url, TOKEN, 64 * 1024);
  if (!warm.ok) throw new Error(`warm-up upload failed: ${warm.status} ${JSON.stringify(warm.record)}`);
  await settle(500);
  const before = rssMiB(mock.pid);
  const peakReset = resetPeak(mock.pid);
  let sampled = before;
  const timer = setInterval(() => {
    try {
      sampled = Math.max(sampled, rssMiB(mock.pid));
    } catch {
      // the process is gone; the upload will report it
    }
  }, 5);
  let up;
  try {
    up = await uploadFile(url, TOKEN, size);
  } finally {
    clearInterval(timer);
  }
  const peak = Math.max(sampled, peakReset ? peakRssMiB(mock.pid) : 0);
  ctx.log(`  ${up.status} in ${up.ms.toFixed(0)} ms; RSS ${before.toFixed(1)} → peak ${peak.toFixed(1)} MiB`);
  await mock.stop();
  return {
    bytes: size,
    ok: up.ok,
    status: up.status,
    ms: up.ms,
    mibPerSecond: size / 2 ** 20 / (up.ms / 1000),
    rssBeforeMiB: before,
    peakRssMiB: peak,
    peakGrowthMiB: peak - before,
    peakFrom: peakReset ? 'VmHWM after clear_refs, and /proc sampling every 5 ms' : '/proc sampling every 5 ms',
  };
}
