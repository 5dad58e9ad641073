// Retention in the real daemon over loopback HTTP: bounds after every upload,
// a pending delivery kept past its age, kill -9 in the middle of a prune.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import sqlite3 from 'sqlite3';
import { stillClip, tempDir } from '../support/clips.js';
import { freePort, TestDaemon } from '../support/daemon.js';
import { settle, storeState, withDb, type StoreState } from './daemon-state.js';

// columns a copied classification shares with its template
const COPIED = 'tenant, flow, parent_id, camera_id, metadata, videoname, filesize, original_specs, status_classify, status_video, clip_bytes, created_at, final';
const NEVER = '0 0 1 1 *'; // the scheduled prune stays out of the way; checks and the start-up prune still run
const OFF = { max_age_days: 0, max_count: 0, max_media_bytes: 0, min_free_bytes: 0, schedule: NEVER, tenant_max_count: 0, tenant_max_media_bytes: 0 };

async function status(daemon: TestDaemon, id: string): Promise<number> {
  return (await fetch(`${daemon.url}/api/result/${id}`, { headers: daemon.auth() })).status;
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

function consistent(s: StoreState): void {
  expect(s.deleting, 'rows left half-deleted').to.equal(0);
  expect(s.folderIds, 'media folders match rows').to.deep.equal([...s.rowIds].sort());
  expect(s.totals, 'running totals').to.deep.equal({ count: s.rowIds.length, mediaBytes: s.rowBytes });
  expect(s.fileBytes, 'bytes on disk match the rows').to.equal(s.rowBytes);
}

describe('retention in the daemon', function () {
  let dir: string;
  let clip: string;
  let clipBytes: number;

  before(async () => {
    dir = tempDir();
    clip = await stillClip('cat.png', path.join(dir, 'cat.mp4'), 2, 10, 320);
    clipBytes = fs.statSync(clip).size;
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('holds the count and byte bounds after every upload, oldest first, nothing orphaned', async () => {
    const maxCount = 4;
    // room for three clips, not four (an upload reserves its Content-Length)
    const maxBytes = Math.floor(clipBytes * 3.5);
    const daemon = await new TestDaemon({ config: { retention: { ...OFF, max_count: maxCount, max_media_bytes: maxBytes } } }).start();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 9; i++) {
        const id = await daemon.submit(clip, { parent_id: `u${i}` });
        ids.push(id);
        const right = await storeState(daemon.dataDir);
        expect(right.rowIds.length, `classifications right after upload ${i}`).to.be.at.most(maxCount);
        expect(right.totals.mediaBytes, `media bytes right after upload ${i}`).to.be.at.most(maxBytes);
        expect(right.rowIds).to.include(id);

        await daemon.waitForResult(id);
        const s = await settle(daemon.dataDir, (st) => st.totals.mediaBytes <= maxBytes && st.fileBytes === st.rowBytes && st.deleting === 0);
        consistent(s);
        expect(s.rowIds.length).to.be.at.most(maxCount);
        expect(s.fileBytes).to.be.at.most(maxBytes);
        // the kept ones are the newest: what was pruned was always the oldest
        expect(s.rowIds, `kept after upload ${i}`).to.deep.equal(ids.slice(ids.length - s.rowIds.length));
      }
      const pruned = daemon.logs.filter((r) => r.msg === 'classification deleted' && r.reason === 'retention').map((r) => r.id);
      const kept = (await storeState(daemon.dataDir)).rowIds;
      expect([...pruned, ...kept]).to.deep.equal(ids);
      for (const id of pruned) expect(await status(daemon, id as string)).to.equal(404);
      for (const id of kept) expect(await status(daemon, id)).to.equal(200);
    } finally {
      await daemon.cleanup();
    }
  });

  it('bounds each tenant by its share: a burst of one tenant prunes only its own results', async () => {
    // two tenants (tenant-a, tenant-b) share max_count 6: three each by default
    const maxBytes = clipBytes * 100;
    const daemon = await new TestDaemon({ config: { retention: { ...OFF, max_count: 6, max_media_bytes: maxBytes, tenant_max_count: 'share', tenant_max_media_bytes: 'share' } } }).start();
    try {
      const alpha: string[] = [];
      for (let i = 0; i < 3; i++) {
        alpha.push(await daemon.submit(clip, { parent_id: `alpha-${i}` }));
        await daemon.waitForResult(alpha[i]);
      }
      const beta: string[] = [];
      for (let i = 0; i < 6; i++) {
        beta.push(await daemon.submit(clip, { parent_id: `beta-${i}` }, '', daemon.otherTenantKey));
        await daemon.waitForResult(beta[i], 60_000, daemon.otherTenantKey);
      }
      const s = await settle(daemon.dataDir, (st) => st.rowIds.length <= 6 && st.deleting === 0);
      consistent(s);
      for (const id of alpha) expect(await status(daemon, id), `alpha's ${id}`).to.equal(200);
      expect(s.rowIds, 'alpha\'s three and beta\'s newest three').to.deep.equal([...alpha, ...beta.slice(3)]);
      const pruned = daemon.logs.filter((r) => r.msg === 'classification deleted' && r.reason === 'retention');
      expect(pruned.map((r) => r.tenant)).to.deep.equal(['tenant-b', 'tenant-b', 'tenant-b']);
    } finally {
      await daemon.cleanup();
    }
  });

  it('keeps a result with a pending delivery past its age until it is delivered', async () => {
    const hookPort = await freePort(); // nothing listens yet: the webhook stays pending
    const daemon = await new TestDaemon({
      config: {
        integrations: [{ tenant: 'tenant-a', flow: 'hooked', url: `http://127.0.0.1:${hookPort}/hook` }],
        webhooks: { timeout_s: 1, backoff: { initial_s: 1, max_s: 1 } },
        retention: { ...OFF, max_age_days: 3 / 86_400, schedule: '* * * * * *' },
      },
    }).start();
    const received: string[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push((JSON.parse(body) as { id: string }).id);
        res.writeHead(200).end();
      });
    });
    try {
      // Decided on state, not on a wall-clock window a loaded machine stretches: a result with no
      // delivery, accepted after the hooked one was final, is pruned by age only when every older
      // final result is past its age too; the hooked one must have been skipped for its delivery.
      const hooked = await daemon.submit(clip, { flow: 'hooked' });
      await daemon.waitForResult(hooked); // never pruned while its delivery is pending
      const plain = await daemon.submit(clip); // not awaited as a result: it may be pruned as soon as it is final
      await until('the younger result without deliveries pruned by age', async () => (await status(daemon, plain)) === 404, 60_000);
      expect(await status(daemon, hooked)).to.equal(200);
      const pending = await withDb(daemon.dataDir, (db) =>
        db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM outbox WHERE classification_id = ? AND state = 'pending'`, [hooked]));
      expect(pending?.n).to.equal(1);

      await new Promise<void>((resolve) => receiver.listen(hookPort, '127.0.0.1', resolve));
      await until('the delivered result pruned by age', async () => (await status(daemon, hooked)) === 404, 60_000);
      expect(received).to.include(hooked);
      // a row reads 404 once marked for deletion, before its files and row are gone
      consistent(await settle(daemon.dataDir, (st) => st.deleting === 0 && st.fileBytes === st.rowBytes));
    } finally {
      receiver.close();
      await daemon.cleanup();
    }
  });

  it('completes a prune interrupted by kill -9 and reconciles files and rows at start', async function () {
    const first = await new TestDaemon({ config: { retention: OFF } }).start();
    const dataDir = first.dataDir;
    const copies = 1500;
    const keep = 10;
    let daemon = first;
    try {
      const newest = await first.submit(clip);
      await first.waitForResult(newest);
      await first.kill();

      // Many older classifications, made fast: rows copied in SQL, clips hard-linked.
      const media = path.join(dataDir, 'media');
      const template = fs.readdirSync(path.join(media, newest))[0];
      const older: string[] = [];
      await withDb(dataDir, (db) =>
        db.transaction(async (tx) => {
          for (let i = 0; i < copies; i++) {
            const id = crypto.randomUUID();
            older.push(id);
            fs.mkdirSync(path.join(media, id));
            fs.linkSync(path.join(media, newest, template), path.join(media, id, `${id}.mp4`));
            await tx.run(
              `INSERT INTO classifications (id, filename, created_ms, highlight_bytes, ${COPIED})
               SELECT ?, ?, created_ms - ?, 0, ${COPIED} FROM classifications WHERE id = ?`,
              [id, `${id}.mp4`, copies - i, newest],
            );
          }
        }),
      );
      // a folder no row owns, and a kept row whose clip vanished
      const orphan = crypto.randomUUID();
      fs.mkdirSync(path.join(media, orphan));
      fs.writeFileSync(path.join(media, orphan, 'clip.mp4'), 'left behind');
      fs.rmSync(path.join(media, newest, template));

      const config = { retention: { ...OFF, max_count: keep, batch_size: 100 } };
      const pruning = (daemon = await new TestDaemon({ dataDir, config }).start());
      await daemon.waitForLog((r) => r.msg === 'classification deleted' && r.reason === 'retention', 60_000);
      await daemon.kill();
      expect(pruning.logs.some((r) => r.msg === 'media files vanished; their rows are marked')).to.equal(true);
      const interrupted = await storeState(dataDir);
      expect(interrupted.rowIds.length + interrupted.deleting, 'rows after the kill').to.be.greaterThan(keep);

      daemon = await new TestDaemon({ dataDir, config }).start();
      const s = await settle(dataDir, (st) => st.rowIds.length <= keep && st.deleting === 0 && st.folderIds.length === st.rowIds.length, 60_000);
      consistent(s);
      expect(s.rowIds).to.deep.equal([...older, newest].slice(-keep));
      expect(s.folderIds).to.not.include(orphan);
      // The vanished clip is marked on its row; the result itself keeps the specification's shape.
      const marked = await new Promise<number>((resolve, reject) => {
        const db = new sqlite3.Database(path.join(dataDir, 'vigil.db'), sqlite3.OPEN_READONLY, (err) => {
          if (err) return reject(err);
          db.get('SELECT clip_deleted FROM classifications WHERE id = ?', [newest], (e, row: { clip_deleted: number }) => {
            db.close();
            if (e) reject(e);
            else resolve(row.clip_deleted);
          });
        });
      });
      expect(marked).to.equal(1);
      const result = (await (await fetch(`${daemon.url}/api/result/${newest}`, { headers: daemon.auth() })).json()) as Record<string, unknown>;
      expect(result).to.not.have.property('media');
    } finally {
      await first.kill();
      await daemon.cleanup();
    }
  });
});
