import { beforeAll, describe, expect, it } from 'vitest';
import { manySessions, oversizedThroughStdio, slowClient } from '../../stress/limits.js';
import { requireBuild } from '../harness.js';

beforeAll(requireBuild);

// Memory figures are printed by `npm run stress`; here the behaviour under the limits is pinned.
describe('limits of a real agent process', () => {
  it('answers a line twice the 8 MiB limit on stdin with -32600 and keeps serving', async () => {
    const report = await oversizedThroughStdio(2);
    expect(report.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/exceeds the limit of 8388608 bytes/),
    });
    expect(report.answeredAfter).toBe(true);
  });

  it('loses nothing when a client stops reading mid-stream and later reads again', async () => {
    const report = await slowClient(3000, 300);
    expect(report.nothingLost).toBe(true);
  });

  it('serves 200 concurrent sessions on one process, every turn complete', async () => {
    const report = await manySessions(200);
    expect(report.completed).toBe(200);
  });
});
