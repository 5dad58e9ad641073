// The Prometheus text rendering on its own: label escaping, histogram series.
import { expect } from 'chai';
import { Registry } from '../../runtime/ops/prometheus.js';
import { parseExposition, value } from './prom-text.js';

describe('ops: Prometheus text rendering', () => {
  it('escapes label values and help text so a scraper reads them back', async () => {
    const r = new Registry();
    const g = r.gauge('t_info', 'help with a \\ backslash\nand a newline');
    const odd = 'quote " backslash \\ newline \n end';
    g.set(1, { name: odd });
    const exp = parseExposition(await r.render());
    expect(value(exp, 't_info', { name: odd })).to.equal(1);
    expect(exp.help.get('t_info')).to.equal('help with a \\\\ backslash\\nand a newline');
  });

  it('renders cumulative histogram buckets, sum and count', async () => {
    const r = new Registry();
    const h = r.histogram('t_seconds', 'durations', [1, 0.1, 10]);
    const observations = [0.05, 0.5, 0.7, 20];
    for (const v of observations) h.observe(v);
    const exp = parseExposition(await r.render());
    const below = (le: number) => observations.filter((v) => v <= le).length;
    for (const le of [0.1, 1, 10]) expect(value(exp, 't_seconds_bucket', { le: String(le) })).to.equal(below(le));
    expect(value(exp, 't_seconds_bucket', { le: '+Inf' })).to.equal(observations.length);
    expect(value(exp, 't_seconds_count')).to.equal(observations.length);
    expect(value(exp, 't_seconds_sum')).to.be.closeTo(observations.reduce((a, b) => a + b, 0), 1e-9);
  });

  it('refuses a metric name registered twice', () => {
    const r = new Registry();
    r.counter('t_total', 'x');
    expect(() => r.gauge('t_total', 'y')).to.throw(/twice/);
  });
});
