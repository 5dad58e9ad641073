// Start-up check for rows whose files vanished (a card error, someone cleaning
// by hand, a crash between removing a clip and marking it): the row stays, its
// missing media are marked so the result says what remains and the byte totals
// stay true. Files without rows are the start-up reconciliation's (jobs/media-reconciliation.ts).
import fs from 'node:fs';
import type { MediaFiles } from '../store/media-files.js';
import type { RetentionQueries } from './retention-queries.js';

const PAGE = 500;

const exists = (file: string) => fs.promises.access(file).then(() => true, () => false);

export async function markVanishedMedia(queries: RetentionQueries, files: MediaFiles): Promise<{ clips: number; highlights: number }> {
  const marked = { clips: 0, highlights: 0 };
  let after = 0;
  for (;;) {
    const rows = await queries.mediaRows(after, PAGE);
    if (rows.length === 0) return marked;
    after = rows[rows.length - 1].rowid;
    await Promise.all(
      rows.map(async (row) => {
        if (row.clip && !(await exists(files.clipPath(row.id, row.filename)))) {
          await queries.markClipDeleted(row.id);
          marked.clips++;
        }
        if (row.highlight && !(await exists(files.highlightPath(row.id)))) {
          await queries.markHighlightDeleted(row.id);
          marked.highlights++;
        }
      }),
    );
  }
}
