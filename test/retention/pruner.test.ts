// The pruner against a real SQLite store and real files: bounds, order, the
// pending-delivery rule, clip-only expiry, vanished media and the database
// file giving its space back.
import fs from 'node:fs';
import { expect } from 'chai';
import { Refusal } from '../../runtime/core/errors.js';
import { storageAdmission } from '../../runtime/retention/admission.js';
import { markVanishedMedia } from '../../runtime/retention/vanished-media.js';
import { toResultJson } from '../../runtime/store/result-json.js';
import { DAY_MS, StoreFixture } from './store-fixture.js';

describe('retention pruner', function () {
  let f: StoreFixture;
  beforeEach(async () => {
    f = await StoreFixture.create();
  });
  afterEach(async () => {
    await f.close();
  });

  async function expectConsistent() {
    const c = await f.consistency();
    expect(c.folderIds, 'media folders match rows').to.deep.equal(c.rowIds);
    expect(c.totals.count, 'counted classifications').to.equal(c.rowIds.length);
    expect(c.totals.mediaBytes, 'counted media bytes').to.equal(c.rowBytes);
    expect(c.fileBytes, 'bytes on disk').to.equal(c.rowBytes);
    return c;
  }

  it('keeps the count bound, oldest first, rows and files together', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await f.add({ ageMs: (12 - i) * 1000, clipBytes: 500 + i }));
    const report = await f.pruner({ max_count: 5, batch_size: 3 }).prune();
    expect(report.pruned).to.equal(7);
    expect(await f.ids()).to.deep.equal(ids.slice(7));
    const deleted = f.logs.filter((l) => l.msg === 'classification deleted');
    expect(deleted.map((l) => l.id)).to.deep.equal(ids.slice(0, 7));
    expect(deleted.every((l) => l.reason === 'retention')).to.equal(true);
    await expectConsistent();
  });

  it('keeps the media-byte bound and prunes by age', async () => {
    const old = await f.add({ ageMs: 40 * DAY_MS, clipBytes: 100 });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await f.add({ ageMs: (6 - i) * 1000, clipBytes: 1000, highlightBytes: 500 }));
    await f.pruner({ max_age_days: 30, max_media_bytes: 4600 }).prune();
    // 6 x 1500 bytes do not fit in 4600: the three oldest go, the one past its age before them
    expect(await f.ids()).to.deep.equal(ids.slice(3));
    expect(await f.ids()).to.not.include(old);
    const c = await expectConsistent();
    expect(c.totals.mediaBytes).to.be.at.most(4600);
  });

  it('keeps a result with a pending delivery past the age and count bounds, not past the byte bound', async () => {
    const pending = await f.add({ ageMs: 50 * DAY_MS, clipBytes: 1000 });
    await f.addDelivery(pending, 'pending');
    const delivered = await f.add({ ageMs: 49 * DAY_MS, clipBytes: 1000 });
    await f.addDelivery(delivered, 'delivered');
    const dropped = await f.add({ ageMs: 48 * DAY_MS, clipBytes: 1000 });
    await f.addDelivery(dropped, 'dropped');
    const fresh = await f.add({ ageMs: 1000, clipBytes: 1000 });

    await f.pruner({ max_age_days: 30 }).prune();
    expect(await f.ids()).to.deep.equal([pending, fresh]);
    // the count bound takes the newer result whose delivery is done, not the older pending one
    await f.pruner({ max_age_days: 30, max_count: 1 }).prune();
    expect(await f.ids()).to.deep.equal([pending]);
    expect(f.logs.some((l) => l.msg === 'undelivered result dropped by retention')).to.equal(false);

    // once delivered, the age bound takes it
    await f.db.run(`UPDATE outbox SET state = 'delivered' WHERE classification_id = ?`, [pending]);
    await f.pruner({ max_age_days: 30 }).prune();
    expect(await f.ids()).to.deep.equal([]);

    // the byte bound wins over a pending delivery, and says so in the log
    const undelivered = await f.add({ ageMs: 2000, clipBytes: 1000 });
    await f.addDelivery(undelivered, 'pending');
    const newest = await f.add({ ageMs: 1000, clipBytes: 1000 });
    await f.pruner({ max_media_bytes: 1500 }).prune();
    expect(await f.ids()).to.deep.equal([newest]);
    const drop = f.logs.find((l) => l.msg === 'undelivered result dropped by retention');
    expect(drop).to.include({ id: undelivered, bound: 'max_media_bytes', pending_deliveries: 1 });
    expect(await f.db.get('SELECT * FROM outbox WHERE classification_id = ?', [undelivered])).to.equal(undefined);
    await expectConsistent();
  });

  it('never prunes queued or processing classifications', async () => {
    const final = await f.add({ ageMs: 10_000, clipBytes: 1000 });
    const queued = await f.add({ ageMs: 40 * DAY_MS, clipBytes: 1000 });
    await f.db.run('UPDATE classifications SET final = 0 WHERE id = ?', [queued]);
    const report = await f.pruner({ max_age_days: 1, max_count: 1, max_media_bytes: 500 }).prune();
    expect(await f.ids()).to.deep.equal([queued]);
    expect(report.pruned).to.equal(1);
    expect(report.blocked).to.match(/max_media_bytes/);
    expect(f.logs.filter((l) => l.msg === 'classification deleted').map((l) => l.id)).to.deep.equal([final]);
  });

  it('removes only the original clip after clip_max_age_days; the row is marked and the highlight stays', async () => {
    const id = await f.add({ ageMs: 10 * DAY_MS, clipBytes: 2000, highlightBytes: 700 });
    const young = await f.add({ ageMs: 1000, clipBytes: 2000, highlightBytes: 700 });
    const report = await f.pruner({ max_age_days: 30, clip_max_age_days: 7 }).prune();
    expect(report.clipsRemoved).to.equal(1);
    const row = (await f.store.get(id))!;
    expect(row.clip_deleted).to.equal(1);
    expect(fs.existsSync(f.files.highlightPath(id))).to.equal(true);
    expect(fs.readdirSync(f.files.folder(id))).to.deep.equal(['highlight.mp4']);
    expect(toResultJson(row).status.video).to.equal('done');
    expect((await f.store.get(young))!.clip_deleted).to.equal(0);
    // the result's own fields stay as submitted
    expect(toResultJson(row).video.filesize).to.equal(2000);
    await expectConsistent();
  });

  it('marks rows whose files vanished', async () => {
    const noClip = await f.add({ ageMs: 1000, clipBytes: 300, highlightBytes: 200 });
    const noFolder = await f.add({ ageMs: 1000, clipBytes: 300, highlightBytes: 200 });
    const intact = await f.add({ ageMs: 1000, clipBytes: 300, highlightBytes: 200 });
    fs.rmSync(f.files.clipPath(noClip, `${noClip}.mp4`));
    fs.rmSync(f.files.folder(noFolder), { recursive: true });
    const marked = await markVanishedMedia(f.queries, f.files);
    expect(marked).to.deep.equal({ clips: 2, highlights: 1 });
    const state = async (id: string) => {
      const row = (await f.store.get(id))!;
      return { clip_deleted: row.clip_deleted, highlight_deleted: row.highlight_deleted, video: toResultJson(row).status.video };
    };
    expect(await state(noClip)).to.deep.equal({ clip_deleted: 1, highlight_deleted: 0, video: 'done' });
    expect(await state(noFolder)).to.deep.equal({ clip_deleted: 1, highlight_deleted: 1, video: 'expired' });
    expect(await state(intact)).to.deep.equal({ clip_deleted: 0, highlight_deleted: 0, video: 'done' });
    expect((await f.queries.totals()).mediaBytes).to.equal(200 + 500);
  });

  it('gives the freed pages of the database file back to the disk', async () => {
    const mode = await f.db.get<{ auto_vacuum: number }>('PRAGMA auto_vacuum');
    expect(mode?.auto_vacuum, 'auto_vacuum = INCREMENTAL').to.equal(2);
    for (let i = 0; i < 1500; i++) await f.add({ ageMs: 1000, clipBytes: 10, metadataBytes: 2000 });
    await f.db.all('PRAGMA wal_checkpoint(TRUNCATE)');
    const pagesBefore = (await f.db.get<{ page_count: number }>('PRAGMA page_count'))!.page_count;
    const sizeBefore = fs.statSync(f.dbFile).size;
    const report = await f.pruner({ max_count: 10 }).prune();
    expect(report.pruned).to.equal(1490);
    expect(report.pagesReleased).to.be.greaterThan(0);
    expect((await f.db.get<{ freelist_count: number }>('PRAGMA freelist_count'))!.freelist_count).to.equal(0);
    const pagesAfter = (await f.db.get<{ page_count: number }>('PRAGMA page_count'))!.page_count;
    expect(pagesAfter).to.be.lessThan(pagesBefore / 10);
    expect(fs.statSync(f.dbFile).size).to.be.lessThan(sizeBefore / 10);
  });

  it('admission makes room for one more upload, or refuses it with 507 when it cannot', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await f.add({ ageMs: (4 - i) * 1000, clipBytes: 1000 }));
    const pruner = f.pruner({ max_count: 4, max_media_bytes: 4000 });
    const admit = storageAdmission(pruner);
    const ctx = (length: number) => ({ get: (h: string) => (h.toLowerCase() === 'content-length' ? String(length) : '') }) as never;

    await admit(ctx(1500));
    // one slot for the count, 1500 bytes: the two oldest make room
    expect(await f.ids()).to.deep.equal(ids.slice(2));

    // larger than everything that could be pruned: refused, and nothing is deleted for nothing
    const err = await admit(ctx(10_000)).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(Refusal);
    expect(err).to.include({ kind: 'no_storage', code: 'insufficient_storage' });
    expect(await f.ids()).to.deep.equal(ids.slice(2));
    await expectConsistent();
  });
});
