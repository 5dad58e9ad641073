// Reading the project's Markdown as GitHub renders it: its headings' anchors
// and its links, outside code blocks and code spans.

/** A link or image target found in a Markdown file, with the line it is on. */
export interface MarkdownLink {
  target: string;
  line: number;
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): Array<{ text: string; line: number }> {
  const out: Array<{ text: string; line: number }> = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (opening) {
      if (!fence) fence = opening[1][0].repeat(opening[1].length);
      else if (line.trim().startsWith(fence)) fence = undefined;
      return;
    }
    if (!fence) out.push({ text: line, line: i + 1 });
  });
  return out;
}

/** A line without its code spans (a link written inside one is text, not a link). */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)[\s\S]*?\1/g, '');
}

/**
 * GitHub's anchor for a heading (the rules of github-slugger): the rendered text, lowercased,
 * without characters other than letters, digits, "_", "-" and spaces, spaces as "-"; a repeated
 * anchor gets "-1", "-2", ...
 */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    for (const explicit of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(explicit[1]);
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!heading) continue;
    const rendered = heading[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
      .replace(/<[^>]+>/g, '') // inline HTML
      .replace(/\*+/g, '') // emphasis with stars
      .replace(/(^|[^\p{L}\p{N}])_{1,2}(?=\S)(.*?\S)_{1,2}(?![\p{L}\p{N}])/gu, '$1$2'); // with underscores, not inside words
    const base = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const seen = counts.get(base) ?? 0;
    counts.set(base, seen + 1);
    anchors.add(seen === 0 ? base : `${base}-${seen}`);
  }
  return anchors;
}

/** Every inline link and image target, and every reference definition, outside code. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { text: raw, line } of proseLines(text)) {
    const prose = withoutCodeSpans(raw);
    for (const m of prose.matchAll(/!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: m[1].replace(/^<|>$/g, ''), line });
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(prose);
    if (definition) links.push({ target: definition[1].replace(/^<|>$/g, ''), line });
  }
  return links;
}

/** A target that leaves the project's files: a URL with a scheme, or protocol-relative. */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}
