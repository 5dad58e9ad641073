// A small metrics registry and its Prometheus text rendering (exposition
// format 0.0.4). Hand-written because the daemon needs only counters, gauges
// and histograms with a few labels; gauges that mirror the database are filled
// by collectors run at scrape time.

export type Labels = Record<string, string>;
type MetricType = 'counter' | 'gauge' | 'histogram';

/** One metric family: a name, its help text and a value per label set. */
abstract class Family {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: MetricType,
  ) {}
  abstract samples(): string[];
}

const key = (labels: Labels): string => JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

class ValueFamily extends Family {
  protected readonly values = new Map<string, { labels: Labels; value: number }>();

  protected entry(labels: Labels) {
    const k = key(labels);
    let e = this.values.get(k);
    if (!e) this.values.set(k, (e = { labels, value: 0 }));
    return e;
  }

  samples(): string[] {
    return [...this.values.values()].map((e) => `${this.name}${labelText(e.labels)} ${formatValue(e.value)}`);
  }
}

export class Counter extends ValueFamily {
  constructor(name: string, help: string) {
    super(name, help, 'counter');
  }
  inc(labels: Labels = {}, by = 1): void {
    this.entry(labels).value += by;
  }
  /** Makes a label set visible at 0 before anything happened (dashboards see the series). */
  touch(labels: Labels = {}): void {
    this.entry(labels);
  }
}

export class Gauge extends ValueFamily {
  constructor(name: string, help: string) {
    super(name, help, 'gauge');
  }
  set(value: number, labels: Labels = {}): void {
    this.entry(labels).value = value;
  }
  /** Replaces every label set (for gauges rebuilt from a query at each scrape). */
  replace(entries: Array<{ labels: Labels; value: number }>): void {
    this.values.clear();
    for (const e of entries) this.set(e.value, e.labels);
  }
}

export class Histogram extends Family {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();

  constructor(
    name: string,
    help: string,
    private readonly buckets: number[],
  ) {
    super(name, help, 'histogram');
    this.buckets = [...buckets].sort((a, b) => a - b);
  }

  observe(value: number, labels: Labels = {}): void {
    const k = key(labels);
    let s = this.series.get(k);
    if (!s) this.series.set(k, (s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    this.buckets.forEach((le, i) => {
      if (value <= le) s!.counts[i]++;
    });
    s.sum += value;
    s.count++;
  }

  /** An empty series, so the histogram is listed before its first observation. */
  touch(labels: Labels = {}): void {
    const k = key(labels);
    if (!this.series.has(k)) this.series.set(k, { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 });
  }

  samples(): string[] {
    const out: string[] = [];
    for (const s of this.series.values()) {
      this.buckets.forEach((le, i) => out.push(`${this.name}_bucket${labelText({ ...s.labels, le: formatValue(le) })} ${s.counts[i]}`));
      out.push(`${this.name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}`);
      out.push(`${this.name}_sum${labelText(s.labels)} ${formatValue(s.sum)}`);
      out.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return out;
  }
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export class Registry {
  private readonly families: Family[] = [];
  private readonly collectors: Array<() => Promise<void>> = [];

  counter(name: string, help: string): Counter {
    return this.add(new Counter(name, help));
  }
  gauge(name: string, help: string): Gauge {
    return this.add(new Gauge(name, help));
  }
  histogram(name: string, help: string, buckets: number[]): Histogram {
    return this.add(new Histogram(name, help, buckets));
  }

  /** Runs before each rendering, to refresh gauges from their source. */
  collect(collector: () => Promise<void>): void {
    this.collectors.push(collector);
  }

  async render(): Promise<string> {
    await Promise.all(this.collectors.map((c) => c()));
    const lines: string[] = [];
    for (const f of this.families) {
      lines.push(`# HELP ${f.name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
      lines.push(`# TYPE ${f.name} ${f.type}`);
      lines.push(...f.samples());
    }
    return lines.join('\n') + '\n';
  }

  private add<F extends Family>(family: F): F {
    if (this.families.some((f) => f.name === family.name)) throw new Error(`metric ${family.name} registered twice`);
    this.families.push(family);
    return family;
  }
}
